import Foundation

/// Parsed command-line arguments, checked against a `CommandSpec`.
public struct Arguments {
    public let spec: CommandSpec
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    public private(set) var wantsHelp = false

    public init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
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

    public func value(_ name: String) -> String? { values[name]?.last }
    public func allValues(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    public func required(_ name: String) throws(UsageError) -> String {
        guard let v = value(name) else { throw UsageError(message: "missing required option '--\(name)'", helpPath: spec.path) }
        return v
    }

    /// A numeric option, with a usage error naming the option and the value when it is not a number.
    public func double(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw UsageError(message: "'--\(name)' must be a finite number, got '\(text)'", helpPath: spec.path)
        }
        return v
    }

    public func int(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text) else { throw UsageError(message: "'--\(name)' must be an integer, got '\(text)'", helpPath: spec.path) }
        return v
    }

    /// An option that must be one of `choices`, with a usage error listing them otherwise.
    public func choice(_ name: String, among choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            let list = choices.count > 1 ? choices.dropLast().joined(separator: ", ") + " or " + choices.last! : choices.joined()
            throw UsageError(message: "'--\(name)' must be \(list), got '\(text)'", helpPath: spec.path)
        }
        return text
    }

    public func usageError(_ message: String) -> UsageError { UsageError(message: message, helpPath: spec.path) }
}
