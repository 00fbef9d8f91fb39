import AvisoCore
import AvisoProtocol
import FoundationEssentials
import Glibc

/// `avisoctl sync`: replaces a program's own set of requests at once.
enum Sync {
    static let help = """
        Usage: avisoctl sync --prefix PREFIX FILE [--json]

        Make the requests whose identifiers start with PREFIX exactly those in FILE, in one transaction: new ones are
        added, missing ones removed (their popups closed), changed ones replaced, identical ones kept with their
        schedules. Every request must start with PREFIX and be valid, or nothing changes. Other prefixes, declared
        reminders and items' reminders ('item-') are never touched. A program that computes its reminders from its
        own data can send the whole set each time, with no old reminder left behind and none twice.

        FILE ('-' for standard input) holds a JSON array of requests, as the control protocol's 'add' takes them:
          [{"id": "build.nightly", "content": {"title": "Nightly build", "body": "Check the results"},
            "trigger": {"kind": "calendar", "spec": "Mon..Fri 07:30"}},
           {"id": "build.release", "content": {"title": "Release"},
            "trigger": {"kind": "date", "at": 1796126400000000000}}]
        An empty array removes every request under PREFIX.

          --prefix PREFIX  The set to replace
          --json           What changed: added, updated, removed, unchanged
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "sync", options: [
            .init(names: ["--prefix"], takesValue: true), .init(names: ["--json"], takesValue: false),
        ])
        guard let prefix = a.value("--prefix"), !prefix.isEmpty else { Output.fail(2, "sync needs --prefix PREFIX") }
        guard a.positionals.count == 1 else { Output.fail(2, "sync needs one FILE, or '-' (see 'avisoctl sync --help')") }
        let file = a.positionals[0]
        let requests: [Request]
        do {
            requests = try JSONDecoder().decode([Request].self, from: Data(read(file)))
        } catch {
            Output.fail(2, "\(file) is not a JSON array of requests: \(error)")
        }
        guard case .synced(let info) = context.send(.sync(prefix: prefix, requests: requests)) else {
            Output.fail(1, "unexpected reply")
        }
        if a.has("--json") { return Output.json(info) }
        Output.line("\(info.added.count) added, \(info.updated.count) changed, \(info.removed.count) removed, "
            + "\(info.unchanged.count) unchanged")
    }

    /// The bytes of a regular file (or standard input), at most the protocol's line length.
    private static func read(_ path: String) -> [UInt8] {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { Output.fail(2, "cannot open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        if path != "-" {
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                Output.fail(2, "\(path) is not a regular file")
            }
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { Output.fail(2, "cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += buffer[..<n]
            if bytes.count > maximumLineLength - 4096 {
                Output.fail(2, "\(path) is larger than a request may be (\(maximumLineLength / 1024) KiB in all)")
            }
        }
        if fd != 0 { close(fd) }
        return bytes
    }
}
