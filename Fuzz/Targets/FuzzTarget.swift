/// One parser under fuzzing: its name (the folder of its corpus, `Fuzz/Corpus/<name>/`) and a
/// check that runs one input through it.
///
/// `check` returns `nil` when the parser behaved (a value, or its own error type with a non-empty
/// message) and a description of the broken promise otherwise; a crash is a crash in either
/// driver. The libFuzzer executables under `Fuzz/Sources/` trap on a description, the smoke tests
/// (`Tests/FuzzSmokeTests`) record it.
///
/// Module: LivelineFuzzTargets (Fuzz/Targets) owns one check per parser and the seeded mutator,
/// shared by the smoke tests and the libFuzzer package. It imports the modules whose parsers it
/// drives; it must never import a test framework or LivelineTesting, so that the libFuzzer build
/// (Fuzz/Package.swift) links without them.
public struct FuzzTarget: Sendable {
    /// The corpus folder name and the executable's suffix: `json` → `fuzz-json`.
    public let name: String
    /// Runs one input; `nil` when the parser kept its promises.
    public let check: @Sendable ([UInt8]) async -> String?

    public init(name: String, check: @escaping @Sendable ([UInt8]) async -> String?) {
        self.name = name
        self.check = check
    }

    /// Every target, in the order `make fuzz` runs them.
    public static let all: [FuzzTarget] = [json, voltraJSON, voltraBase64, layoutForm, pemKey, simulator, service]

    /// The target called `name`, if any.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// `nil` when `message` is a usable error message, else what is wrong with it.
func emptyMessage(_ message: String, _ what: String) -> String? {
    message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "\(what) threw an error with an empty message" : nil
}
