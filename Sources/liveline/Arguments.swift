import Foundation

/// What a command accepts: its options, flags and positional arguments, and the text of `--help`.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        var name: String          // without the leading dashes
        var valueName: String?    // nil for a flag
        var help: String
        var repeatable = false
    }

    var path: String              // "liveline payload"
    var abstract: String
    var usage: String             // after the path: "start|update|end [options]"
    var options: [Option] = []
    var positionals: ClosedRange<Int> = 0...0
    var discussion: String = ""

    var helpText: String {
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
struct UsageError: Error {
    var message: String
    var helpPath: String
}

/// A failure the user can act on: printed to stderr, exit code 1 unless given.
struct CLIError: Error {
    var message: String
    var exitCode: Int32 = 1
}

/// Parsed command-line arguments, checked against a `CommandSpec`.
struct Arguments {
    let spec: CommandSpec
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if argument == "-h" && !onlyPositionals { wantsHelp = true; continue }
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if name == "help" { wantsHelp = true; continue }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let near = spec.options.map(\.name).first { $0.hasPrefix(name) || name.hasPrefix($0) }
                throw UsageError(message: "unknown option '--\(name)'" + (near.map { " (did you mean '--\($0)'?)" } ?? ""), helpPath: spec.path)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError(message: "'--\(name)' takes no value", helpPath: spec.path) }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "'--\(name)' needs a value <\(option.valueName!)>", helpPath: spec.path)
                }
                value = arguments[index]
                index += 1
            }
            if values[name] != nil && !option.repeatable {
                throw UsageError(message: "'--\(name)' given more than once", helpPath: spec.path)
            }
            values[name, default: []].append(value)
        }
        if !wantsHelp && !spec.positionals.contains(positionals.count) {
            let expected = spec.positionals.lowerBound == spec.positionals.upperBound
                ? "\(spec.positionals.lowerBound)" : "\(spec.positionals.lowerBound) to \(spec.positionals.upperBound)"
            let got = positionals.isEmpty ? "none" : positionals.map { "'\($0)'" }.joined(separator: " ")
            throw UsageError(message: "expected \(expected) argument\(spec.positionals.upperBound == 1 ? "" : "s"), got \(got)", helpPath: spec.path)
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func allValues(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    func required(_ name: String) throws(UsageError) -> String {
        guard let v = value(name) else { throw UsageError(message: "missing required option '--\(name)'", helpPath: spec.path) }
        return v
    }

    /// A numeric option, with a usage error naming the option and the value when it is not a number.
    func double(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw UsageError(message: "'--\(name)' must be a finite number, got '\(text)'", helpPath: spec.path)
        }
        return v
    }

    func int(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text) else { throw UsageError(message: "'--\(name)' must be an integer, got '\(text)'", helpPath: spec.path) }
        return v
    }

    /// An option that must be one of `choices`, with a usage error listing them otherwise.
    func choice(_ name: String, among choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            let list = choices.count > 1 ? choices.dropLast().joined(separator: ", ") + " or " + choices.last! : choices.joined()
            throw UsageError(message: "'--\(name)' must be \(list), got '\(text)'", helpPath: spec.path)
        }
        return text
    }

    func usageError(_ message: String) -> UsageError { UsageError(message: message, helpPath: spec.path) }
}

/// Standard output and error, written with `write(2)` (the C globals do not compile in Swift 6 mode).
enum Console {
    static func out(_ text: String) { write(1, text.hasSuffix("\n") ? text : text + "\n") }
    static func err(_ text: String) { write(2, text.hasSuffix("\n") ? text : text + "\n") }
    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}

/// Reads a file the user named, with an error that names it.
func readUserFile(_ path: String, what: String) throws(CLIError) -> [UInt8] {
    if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let data = FileManager.default.contents(atPath: path) else {
        let exists = FileManager.default.fileExists(atPath: path)
        throw CLIError(message: "cannot read \(what) '\(path)': \(exists ? "permission denied or a directory" : "no such file")")
    }
    return Array(data)
}
