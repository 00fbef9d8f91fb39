import AvisoCore

/// The summary and body sent for a content, given whether the server renders body markup.
///
/// The freedesktop protocol has no subtitle: it goes on the body's first line, bold when the server supports
/// `body-markup`. The summary is always plain text, per the specification.
struct NotificationText: Hashable, Sendable {
    var summary: String
    var body: String

    init(_ content: Content, markup: Bool) {
        // An empty summary renders as a blank title on most servers, so the body moves up.
        let titled = !content.title.isEmpty
        summary = titled ? content.title : content.body
        let text = titled ? content.body : ""
        let subtitle = content.subtitle
        switch (markup, subtitle.isEmpty) {
        case (true, true): body = NotificationText.escape(text)
        case (true, false):
            body = "<b>\(NotificationText.escape(subtitle))</b>" + (text.isEmpty ? "" : "\n" + NotificationText.escape(text))
        case (false, true): body = text
        case (false, false): body = subtitle + (text.isEmpty ? "" : "\n" + text)
        }
    }

    /// Escapes text for the markup subset servers accept, so user text like "a < b & c" is shown, not parsed.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
