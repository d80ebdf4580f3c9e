import Foundation
import LivelineSimulator

/// A seeded byte mutator for the smoke tests (libFuzzer has its own): the same seed gives the
/// same inputs, so a failure names the seed and iteration that reproduce it.
public struct Mutator: Sendable {
    private var random: SeededGenerator
    /// Fragments that matter to JSON, base64, PEM and HTTP parsers.
    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\\ud800", "null", "true", "-0", "1e999", "-1e-400", "0.5",
        "9007199254740993", "\u{0}", "\n", "\n\n", "=", "==", "-----BEGIN PUBLIC KEY-----\n", "-----END PUBLIC KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\n", "\"type\":", "\"children\":", "\"props\":", "\"aps\":", "%00", "/", "..", "?", "&",
        "$JWT", "$TOKEN", "$PTS", "$ADMIN", "$APP",
    ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98]]

    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// The next pseudo-random number (the simulator's SplitMix64).
    public mutating func next() -> UInt64 { random.next() }

    public mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    /// `input` changed by one to four edits: flips, inserts, deletions, duplications, tokens, or a
    /// splice with `other`.
    public mutating func mutate(_ input: [UInt8], splicing other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) {
            let at = below(bytes.count + 1)
            switch below(8) {
            case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] ^= UInt8(1 << below(8))
            case 1: bytes.insert(UInt8(truncatingIfNeeded: next()), at: at)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(16)))
            case 3 where at < bytes.count:
                let slice = bytes[at..<min(bytes.count, at + 1 + below(32))]
                bytes.insert(contentsOf: slice, at: at)
            case 4, 5: bytes.insert(contentsOf: Self.tokens[below(Self.tokens.count)], at: at)
            case 6 where !other.isEmpty:
                let from = below(other.count)
                bytes = Array(bytes[..<at]) + other[from...]
            case 7 where at < bytes.count: bytes.removeSubrange(at...)
            default: bytes.append(UInt8(truncatingIfNeeded: next()))
            }
        }
        return bytes
    }
}
