import AvisoProtocol

/// Collects errors and warnings for one file, each with its line.
struct ProblemCollector {
    let file: String
    var errors: [ConfigProblem] = []
    var warnings: [ConfigProblem] = []

    init(file: String) { self.file = file }

    mutating func error(_ line: Int?, _ message: String) {
        errors.append(ConfigProblem(file: file, line: line, message: message))
    }

    mutating func warning(_ line: Int?, _ message: String) {
        warnings.append(ConfigProblem(file: file, line: line, message: message))
    }
}

extension String {
    /// The string without leading and trailing characters from `set`.
    func trimmed(_ set: String = " \t\r") -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
