import Testing
@testable import LivelineSimulator

/// The byte-level helpers of the per-push path give exactly what the `String` code they replace gives.
@Suite("Byte-level string helpers")
struct ASCIITests {
    static let texts = [
        "", "apns-topic", "Authorization", "APNS-PUSH-TYPE", "caf\u{E9}", "cafe\u{301}", "\u{212A}elvin", "x-\u{130}d",
        "/3/device/", "/3/device/abcdef0123456789abcdef0123456789", "/3/device/a\u{301}bcdef0123", "/3/device/\r\nabcdefgh",
        "/3/devic", "/4/broadcasts/apps/x", "ABCDEF0123456789", "abcdefgh", "abcdefghi", "\r\nabcdefghij", "abcd\u{301}efghij",
    ]

    @Test("lowercased matches String.lowercased()", arguments: texts)
    func lowercased(_ text: String) {
        #expect(Array(ASCII.lowercased(text).utf8) == Array(text.lowercased().utf8))
    }

    @Test("sameBytes is byte equality, not canonical equivalence", arguments: texts)
    func sameBytes(_ text: String) {
        for other in Self.texts {
            #expect(ASCII.sameBytes(text, other) == Array(text.utf8).elementsEqual(Array(other.utf8)))
        }
    }

    @Test("deviceToken(inPath:) matches dropping 10 characters after the prefix", arguments: texts)
    func deviceToken(_ path: String) {
        let expected = path.hasPrefix("/3/device/") ? String(path.dropFirst(10)) : nil
        #expect(SimulatorState.deviceToken(inPath: path).map { Array($0.utf8) } == expected.map { Array($0.utf8) })
    }

    @Test("the cached redacted path matches the uncached one", arguments: texts)
    func redactedPath(_ token: String) {
        var state = SimulatorState(config: SimulatorConfiguration())
        for _ in 0..<2 {
            let cached = state.parsePath("/3/device/" + token).redacted
            #expect(Array(cached.utf8) == Array(SimulatorState.redactedPath("/3/device/" + token, token: token).utf8))
        }
    }

    @Test("token scan finds slashes, non-hex and upper-case hex", arguments: [
        ("abc123", false, true, false), ("ABC123", false, true, true), ("ab/12", true, false, false), ("abz", false, false, false),
        ("", false, true, false), ("\u{E9}", false, false, false),
    ])
    func scan(_ token: String, _ slash: Bool, _ hex: Bool, _ upper: Bool) {
        let r = ASCII.scan(token: token)
        #expect(r.hasSlash == slash)
        #expect(r.allHex == hex)
        #expect(r.hasUpper == upper)
    }
}
