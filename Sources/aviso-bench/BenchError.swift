/// A benchmark that cannot run, with what to do about it.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
