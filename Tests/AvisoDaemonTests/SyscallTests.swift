import Glibc
import Testing

@testable import AvisoDaemon

extension Integration {
    /// The one syscall helper: EINTR is retried, other failures surface with the function's name.
    ///
    /// Serialized, and each test injects under its own function name, because the injection table is process-wide.
    @Suite(.serialized) struct SyscallTests {
        #if FAILURE_INJECTION
        @Test func injectedEINTRIsRetriedUntilTheCallSucceeds() throws {
            injectedFailures["aviso_test_eintr"] = [.interrupted, .interrupted, .interrupted]
            var realCalls = 0
            let result = try syscall("aviso_test_eintr") {
                realCalls += 1
                return Int32(42)
            }
            #expect(result == 42)
            // The three injected failures stand in for three interrupted calls; the fourth attempt is the real one.
            #expect(realCalls == 1)
            #expect(injectedFailures["aviso_test_eintr"] == nil)
        }
        #endif

        @Test func aCallInterruptedByTheKernelIsRetried() throws {
            var attempts = 0
            let result = try syscall("aviso_test_real_eintr") { () -> Int in
                attempts += 1
                if attempts <= 3 {
                    errno = EINTR
                    return -1
                }
                return 7
            }
            #expect(result == 7)
            #expect(attempts == 4)
        }

        #if FAILURE_INJECTION
        @Test func ENOSPCSurfacesWithTheFunctionName() {
            injectedFailures["aviso_test_inotify_add_watch"] = [.noSpace]
            var realCalls = 0
            let error = #expect(throws: SystemError.self) {
                try syscall("aviso_test_inotify_add_watch") {
                    realCalls += 1
                    return Int32(1)
                }
            }
            #expect(error?.errno == .noSpace)
            #expect(error?.function == "aviso_test_inotify_add_watch")
            #expect(error?.description == "aviso_test_inotify_add_watch: \(String(cString: strerror(ENOSPC)))")
            #expect(realCalls == 0)
        }
        #endif

        @Test func aRealFailureCarriesErrno() {
            let error = #expect(throws: SystemError.self) {
                try syscall("open") { open("/nonexistent/aviso/test", O_RDONLY) }
            }
            #expect(error == SystemError("open", .noEntry))
        }

        #if FAILURE_INJECTION
        @Test func aWrapperRetriesEINTRAndStillArmsTheTimer() throws {
            // Timer tests running in parallel may take some of these; they are retried there too, so nothing breaks.
            injectedFailures["timerfd_settime"] = [.interrupted, .interrupted, .interrupted]
            defer { injectedFailures["timerfd_settime"] = nil }
            let fd = try TimerFD.create(.boottime)
            defer { close(fd) }
            try TimerFD.arm(fd, clock: .boottime, deadline: 1)
            // The expiry is delivered by a kernel interrupt: wait for it, bounded, rather than read at once.
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&entry, 1, 5_000) == 1)
            #expect(try TimerFD.read(fd) == .expired(1))
        }
        #endif
    }
}
