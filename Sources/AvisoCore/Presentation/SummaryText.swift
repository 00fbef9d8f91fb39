/// One popup that stands for several notifications: missed while asleep, held by quiet hours, or waiting for a
/// scheduled summary. Its lines go by descending relevance; the most relevant names it ("Medication and 4 more") and
/// lends it its image.
public enum SummaryText {
    /// One notification folded into a summary.
    public struct Item: Hashable, Sendable {
        public var id: String
        public var content: Content
        public var due: WallTime
        /// What the line says after the title, like "(due at 09:00)"; empty for none.
        public var note: String

        public init(id: String, content: Content, due: WallTime, note: String = "") {
            self.id = id
            self.content = content
            self.due = due
            self.note = note
        }
    }

    /// Lines shown before "+K more".
    public static let maximumLines = 5

    /// The summary's content: title, body lines, image and the highest level among the items. `items` must not be
    /// empty.
    public static func compose(_ items: [Item]) -> Content {
        let ordered = ReleaseOrder.sorted(items) {
            ReleaseOrder.Key(relevance: $0.content.relevance, level: $0.content.level, due: $0.due, id: $0.id)
        }
        let head = ordered.first.map(name) ?? ""
        let title = ordered.count == 1 ? head : "\(head) and \(ordered.count - 1) more"
        var lines = ordered.prefix(maximumLines).map { item in
            "• " + name(item) + (item.note.isEmpty ? "" : " " + item.note)
        }
        if ordered.count > maximumLines { lines.append("+\(ordered.count - maximumLines) more") }
        return Content(
            title: title, body: lines.joined(separator: "\n"), relevance: ordered.first?.content.relevance,
            level: ordered.map(\.content.level).max { $0.rank < $1.rank } ?? .active, image: ordered.first?.content.image)
    }

    private static func name(_ item: Item) -> String {
        item.content.title.isEmpty ? item.content.body : item.content.title
    }
}
