import Foundation

/// What a command accepts: its options, flags and positional arguments, and the text of `--help`.
public struct CommandSpec: Sendable {
    public struct Option: Sendable {
        public var name: String          // without the leading dashes
        public var valueName: String?    // nil for a flag
        public var help: String
        public var repeatable = false

        public init(name: String, valueName: String? = nil, help: String, repeatable: Bool = false) {
            self.name = name
            self.valueName = valueName
            self.help = help
            self.repeatable = repeatable
        }
    }

    public var path: String              // "liveline payload"
    public var abstract: String
    public var usage: String             // after the path: "start|update|end [options]"
    public var options: [Option] = []
    public var positionals: ClosedRange<Int> = 0...0
    public var discussion: String = ""

    public init(path: String, abstract: String, usage: String, options: [Option] = [], positionals: ClosedRange<Int> = 0...0, discussion: String = "") {
        self.path = path
        self.abstract = abstract
        self.usage = usage
        self.options = options
        self.positionals = positionals
        self.discussion = discussion
    }

    public var helpText: String {
        var text = "\(abstract)\n\nUSAGE: \(path) \(usage)\n"
        if !options.isEmpty {
            text += "\nOPTIONS:\n"
            let rows = options.map { option in
                ("--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? ""), option.help)
            } + [("-h, --help", "Show this help.")]
            let width = min(34, rows.map(\.0.count).max() ?? 0)
            for (left, right) in rows {
                let pad = left.count < width ? String(repeating: " ", count: width - left.count) : "\n" + String(repeating: " ", count: width + 2)
                text += "  \(left)\(pad)  \(right)\n"
            }
        }
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        return text
    }
}

/// A usage mistake: exit code 64 and a one-line hint pointing at `--help`.
public struct UsageError: Error {
    public var message: String
    public var helpPath: String

    public init(message: String, helpPath: String) {
        self.message = message
        self.helpPath = helpPath
    }
}

/// A failure the user can act on: printed to stderr, exit code 1 unless given.
public struct CLIError: Error {
    public var message: String
    public var exitCode: Int32 = 1

    public init(message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}
