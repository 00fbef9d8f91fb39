// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "aviso",
    products: [
        .executable(name: "avisod", targets: ["avisod"]),
        .executable(name: "avisoctl", targets: ["avisoctl"]),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(name: "CNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Tiny C for macros and variadic functions.
        .target(name: "CShims"),
        // The kernel's interfaces (epoll, timerfd, eventfd, signalfd, inotify) from their headers.
        .target(name: "CKernel"),

        // Pure: no Glibc, no Foundation, no C modules, no clock reads.
        .target(name: "AvisoCore"),
        // Wire types and framing shared by daemon and client.
        .target(name: "AvisoProtocol", dependencies: ["AvisoCore"]),
        // The only module that touches C and the kernel.
        // Failure injection (`injectedFailures`) exists in debug builds only, which the tests use; release builds make
        // each system call directly.
        .target(name: "AvisoDaemon", dependencies: ["AvisoCore", "AvisoProtocol", "CNotify", "CSystemd", "CSQLite", "CShims", "CKernel"],
                swiftSettings: [.define("FAILURE_INJECTION", .when(configuration: .debug))]),

        .executableTarget(name: "avisod", dependencies: ["AvisoDaemon"]),
        .executableTarget(name: "avisoctl", dependencies: ["AvisoProtocol", "AvisoCore"]),
        // Benchmarks: next-elapse cost beside Foundation (see Benchmarks/run).
        .executableTarget(name: "aviso-bench", dependencies: ["AvisoCore", "AvisoProtocol", "AvisoDaemon"]),

        // Test seams: manual clock, process fixtures, a test notification server.
        .target(name: "AvisoTestSupport", dependencies: ["AvisoCore", "AvisoProtocol"]),
        // GDBus name owning, stdin commands and JSON event lines shared by the two test servers.
        .target(name: "TestBusServerKit", dependencies: ["CNotify"]),
        .executableTarget(name: "aviso-test-notifyd", dependencies: ["CNotify", "TestBusServerKit"]),
        .executableTarget(name: "aviso-test-logind", dependencies: ["CNotify", "TestBusServerKit"]),

        .testTarget(name: "AvisoCoreTests", dependencies: ["AvisoCore", "AvisoTestSupport"]),
        .testTarget(name: "AvisoProtocolTests", dependencies: ["AvisoProtocol", "AvisoTestSupport"]),
        .testTarget(name: "AvisoDaemonTests", dependencies: [
            "AvisoDaemon", "AvisoTestSupport", "CKernel", "CNotify", "avisod", "avisoctl", "aviso-test-notifyd", "aviso-test-logind",
        ], swiftSettings: [.define("FAILURE_INJECTION", .when(configuration: .debug))]),
        .testTarget(name: "EndToEndTests", dependencies: ["AvisoTestSupport", "avisod", "avisoctl"]),
    ],
    swiftLanguageModes: [.v6]
)
