internal import CNotify
import Glibc

extension LogindServer {
    /// Reads test commands from stdin on the main loop: `sleep`, `resume` and `quit`; end of input quits too, so the
    /// server never outlives the test that started it.
    func watchStdin() {
        let channel = g_io_channel_unix_new(0)
        g_io_add_watch(
            channel, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            { channel, _, data in LogindServer.from(data).readCommands(channel!) ? 1 : 0 },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Handles every complete line buffered so far; false removes the watch (end of input or `quit`).
    private func readCommands(_ channel: UnsafeMutablePointer<GIOChannel>) -> Bool {
        repeat {
            var line: UnsafeMutablePointer<gchar>?
            var error: UnsafeMutablePointer<GError>?
            let status = g_io_channel_read_line(channel, &line, nil, nil, &error)
            switch status {
            case G_IO_STATUS_NORMAL:
                let text = String(cString: line!)
                g_free(line)
                if !handle(text) { return false }
            case G_IO_STATUS_AGAIN:
                return true
            default:
                if let error { g_error_free(error) }
                g_main_loop_quit(loop)
                return false
            }
        } while g_io_channel_get_buffer_condition(channel).rawValue & G_IO_IN.rawValue != 0
        return true
    }

    private func handle(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        switch words.first {
        case "quit":
            g_main_loop_quit(loop)
            return false
        case "sleep": prepareForSleep(true)
        case "resume": prepareForSleep(false)
        case nil: break
        default: EventLine.emit("error", [("message", .string("unknown command: \(line)"))])
        }
        return true
    }
}
