import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The desktop entry that the `desktop-entry` hint of every popup names ("aviso", checked on the wire by
    /// DeliveryTests): what GNOME Shell and KDE read for the name, the icon and the notification settings.
    struct DesktopEntryTests {
        static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data").path

        @Test func theDesktopEntryIsValidAndNamesTheIcon() throws {
            let entry = Self.data + "/aviso.desktop"
            let r = try DaemonProcess.run("/usr/bin/desktop-file-validate", [entry])
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            #expect(r.stdout.isEmpty && r.stderr.isEmpty, "desktop-file-validate has remarks: \(r.stdout)\(r.stderr)")
            let text = try String(contentsOfFile: entry, encoding: .utf8)
            for line in ["NoDisplay=true", "X-GNOME-UsesNotifications=true", "Icon=aviso", "Exec=avisod"] {
                #expect(text.contains("\n" + line + "\n"), "\(line)")
            }
            // The icon is where `make install` takes it from, and is an SVG document.
            let icon = Self.data + "/icons/hicolor/scalable/apps/aviso.svg"
            let parsed = try DaemonProcess.run("/usr/bin/python3", ["-c",
                "import sys, xml.etree.ElementTree as t; print(t.parse(sys.argv[1]).getroot().tag)", icon])
            #expect(parsed.stdout == "{http://www.w3.org/2000/svg}svg\n", "\(parsed.stderr)")
        }
    }
}
