import Foundation

/// Where the package's built executables are, for tests that run them as child processes.
public enum Products {
    /// The path of the executable `name` built next to the running test binary.
    ///
    /// Under `swift test` the test bundle runs from `.build/<triple>/<config>/`, where SwiftPM also puts `avisod`,
    /// `avisoctl` and `aviso-test-notifyd` (the test target depends on them, so they are built first).
    public static func path(_ name: String) -> String {
        directory + "/" + name
    }

    /// The resolved directory of `/proc/self/exe`.
    public static let directory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent
    }()
}
