import Foundation
import LivelineCore

/// `liveline payload start|update|end`: builds, validates and prints a Live Activity push body.
enum PayloadCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline payload", abstract: "Build and validate a Live Activity push body.",
        usage: "start|update|end [options]", positionals: 1...1)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        Console.out("todo")
        return 0
    }
}
