import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct VoltraDecoderTests {
    @Test(arguments: SpecVectors.all.map(\.name))
    func decodingAndReEncodingASpecExampleGivesTheSameBytes(name: String) throws {
        let vector = SpecVectors.all.first { $0.name == name }!
        let base64 = VoltraEncoder.encode(vector.layout, mode: .compatible).base64
        let decoded = try VoltraDecoder.decode(base64: base64)
        #expect(decoded.issues.isEmpty)
        #expect(String(decoding: decoded.json, as: UTF8.self) == vector.json)
        // `$r` and style indices resolve to shared instances, so identity-based re-encoding matches.
        #expect(VoltraEncoder.encode(decoded.layout, mode: .compatible).jsonString == vector.json)
    }

    @Test func decodesTheSeedString() throws {
        let decoded = try VoltraDecoder.decode(base64: SpecVectors.helloBase64)
        #expect(decoded.version == 1)
        #expect(LayoutForm.json(decoded.layout).jsonString == #"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#)
    }

    @Test func unknownComponentIdRendersNothingAndIsReported() throws {
        let json = #"{"v":1,"ls":{"t":11,"c":[{"t":99,"c":"x"},{"t":0,"c":"kept"}]}}"#
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        guard case .list(let children)? = decoded.layout[.lockScreen]?.children else { Issue.record("no list"); return }
        #expect(children.count == 1)
        #expect(children.first?.component == .text)
        #expect(decoded.issues.map(\.kind) == [.unknownComponent])
        #expect(decoded.issues.first?.description == "ls.c[0].t: unknown component id 99; renders nothing [unknown-component]")
    }

    @Test func wrongTypedPropFallsBackToDefaultsAndIsReported() throws {
        let json = #"{"v":1,"ls":{"t":11,"p":{"sp":"8","al":"leading","s":0}},"s":[{"pad":4}]}"#
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        let stack = try #require(decoded.layout[.lockScreen])
        // Every VStack parameter falls back, the style stays.
        #expect(stack.props.map(\.name) == ["style"])
        #expect(decoded.issues.count == 1)
        let issue = try #require(decoded.issues.first)
        #expect(issue.kind == .wrongPropType)
        #expect(issue.path == "ls.p")
        #expect(issue.message.contains(#"spacing (sp) is string "8", expected number"#))
        #expect(issue.message.contains("falls back to defaults for all VStack parameters"))
    }

    @Test(arguments: [
        (#"{"v":1,"ls":{"$r":3},"e":[]}"#, UILintIssue.Kind.badReference),
        (#"{"v":1,"ls":{"t":0,"c":"x","p":{"s":5}}}"#, .badReference),
        (#"{"v":1,"ls":{"t":0,"c":"x","p":[1]}}"#, .malformedNode),
        (#"{"v":1,"ls":{"t":"0"}}"#, .malformedNode),
        (#"{"v":2,"ls":{"t":0}}"#, .unsupportedVersion),
    ])
    func tolerantOfWhatTheDeviceTolerates(json: String, kind: UILintIssue.Kind) throws {
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        #expect(decoded.issues.map(\.kind) == [kind])
    }

    @Test(arguments: [
        ("not base64!", UIError.Code.invalidBase64, "not standard base64"),
        ("aGVsbG8gd29ybGQ=", .invalidBrotli, "not a brotli stream"),
        (Data(Brotli.compress(Array(#"{"ls":1}"#.utf8))).base64EncodedString(), .invalidPayload, #"no "v""#),
        (Data(Brotli.compress(Array("[1,".utf8))).base64EncodedString(), .invalidPayload, "does not hold JSON"),
        ("ixOA-yJ2", .invalidBase64, "URL-safe"),
        ("  ", .invalidBase64, "uiJsonData is empty"),
    ])
    func unreadableInputIsAnErrorNamingTheProblem(input: String, code: UIError.Code, fragment: String) {
        #expect {
            try VoltraDecoder.decode(base64: input)
        } throws: { error in
            guard let error = error as? UIError else { return false }
            return error.code == code && error.message.contains(fragment)
        }
    }

    /// VoltraPayloadMigrator.swift:39 reads `v` with `intValue`; a number JSONDecoder does not decode as
    /// an Int is no version, and the device drops the update. `Int(1e300)` used to trap here.
    @Test(arguments: [
        ("1e300", "1e+300"), ("-1e300", "-1e+300"), ("1.5", "1.5"), ("1e19", "10000000000000000000"),
        ("-9.3e18", "-9300000000000000000"),
    ])
    func aVersionThatIsNotAnIntIsAnErrorNamingIt(version: String, printed: String) {
        #expect {
            try VoltraDecoder.decode(json: Array(#"{"v":\#(version),"ls":{"t":0,"c":"x"}}"#.utf8))
        } throws: { error in
            guard let error = error as? UIError else { return false }
            return error.code == .invalidPayload
                && error.message.hasPrefix(#"payload "v" must be an integer, got \#(printed); the device reads no version"#)
        }
    }

    /// JSON has no NaN or Infinity; the nearest is a number out of Double's range, refused by the parser.
    @Test(arguments: ["1e400", "-1e400"])
    func aVersionOutOfDoubleRangeIsNotJSON(version: String) {
        #expect {
            try VoltraDecoder.decode(json: Array(#"{"v":\#(version),"ls":{"t":0,"c":"x"}}"#.utf8))
        } throws: { error in
            guard let error = error as? UIError else { return false }
            return error.code == .invalidPayload && error.message.hasPrefix("uiJsonData does not hold JSON: invalid JSON at line 1")
                && error.message.hasSuffix("number \(version) is out of range")
        }
    }

    /// VoltraPayloadMigrator.swift:44 and :53: a version newer than 1, or older with no migration, renders nothing.
    @Test(arguments: [(2, "newer than 1"), (0, "older than 1"), (-7, "older than 1")])
    func aVersionOtherThanOneRendersNothing(version: Int, relation: String) throws {
        let decoded = try VoltraDecoder.decode(json: Array(#"{"v":\#(version),"ls":{"t":0,"c":"x"}}"#.utf8))
        #expect(decoded.version == version)
        #expect(decoded.layout.regions.isEmpty)
        #expect(decoded.issues.map(\.description) == ["v: version \(version) is \(relation)\(version < 1 ? " (there is no migration from it)" : ""); the device renders nothing [unsupported-version]"])
    }

    /// Type ids, references and style indices that are numbers but not Ints (VoltraElement.swift:98,
    /// VoltraNode.swift:42, VoltraElement.swift:62) name nothing on the device; each used to trap in `Int(_:)`.
    @Test(arguments: [
        (#"{"v":1,"ls":{"t":1e300}}"#, "ls.t: node type must be an integer, got 1e+300; renders nothing [malformed-node]"),
        (#"{"v":1,"ls":{"t":-1e300}}"#, "ls.t: node type must be an integer, got -1e+300; renders nothing [malformed-node]"),
        (#"{"v":1,"ls":{"t":0.5}}"#, "ls.t: node type must be an integer, got 0.5; renders nothing [malformed-node]"),
        (#"{"v":1,"ls":{"$r":1e300},"e":[{"t":0}]}"#, "ls: $r 1e+300 is outside e (1 entries); renders nothing [bad-reference]"),
        (#"{"v":1,"ls":{"t":11,"c":[{"$r":-1e300}]},"e":[{"t":0}]}"#, "ls.c[0]: $r -1e+300 is outside e (1 entries); renders nothing [bad-reference]"),
        (#"{"v":1,"ls":{"$r":0.5},"e":[{"t":0}]}"#, "ls: $r 0.5 is outside e (1 entries); renders nothing [bad-reference]"),
        (#"{"v":1,"ls":{"t":0,"c":"x","p":{"s":1e300}},"s":[{"c":"red"}]}"#, "ls.p.s: style index 1e+300 is outside s (1 entries); no style [bad-reference]"),
        (#"{"v":1,"ls":{"t":0,"c":"x","p":{"s":-1e300}},"s":[{"c":"red"}]}"#, "ls.p.s: style index -1e+300 is outside s (1 entries); no style [bad-reference]"),
    ])
    func numbersThatAreNotIntsNameNothing(json: String, issue: String) throws {
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        #expect(decoded.issues.map(\.description) == [issue])
        #expect(decoded.layout[.lockScreen]?.prop("style") == nil)
    }

    /// A valid stream that inflates past the decoder's output limit was reported as "not a brotli stream".
    @Test func aBrotliBombIsReportedAsOneWithItsRatio() throws {
        let bomb = Brotli.compress([UInt8](repeating: 0x20, count: 100_000_000), quality: 2)
        #expect(bomb.count < 300)   // 269 bytes at quality 2 for 100 MB
        #expect(Brotli.decompressedSize(bomb) == .moreThan(64 << 20))
        #expect(Brotli.decompressedSize(Array(bomb.dropLast(bomb.count / 2))) == .corrupt)
        #expect(Brotli.decompressedSize(Brotli.compress(Array("{}".utf8))) == .exactly(2))
        let message = """
            uiJsonData inflates to more than 67108864 bytes, the output limit of this decoder, from \(bomb.count) compressed \
            bytes: a ratio over \((64 << 20) / bomb.count):1. The device's decoder stops at 8× (\(8 * bomb.count) bytes) and \
            drops the update.
            """
        let base64 = Data(bomb).base64EncodedString()
        #expect(throws: UIError(.compressionRatio, message)) { try VoltraDecoder.decode(base64: base64) }
        #expect(throws: UIError(.compressionRatio, message)) { try VoltraDecoder.lint(base64: base64) }
    }

    /// VoltraLiveActivityPayload.swift:78-82: a region array is its list of nodes; an empty one shows nothing.
    @Test(arguments: [
        (#"{"v":1,"ls":[]}"#, ["ls: an empty array: the device shows nothing in lockScreen [empty-region]"]),
        (#"{"v":1}"#, ["ls: missing: the device shows nothing on the Lock Screen [empty-region]"]),
        (#"{"v":1,"ls":{"t":0,"c":"x"},"isl_min":[]}"#, ["isl_min: an empty array: the device shows nothing in island.minimal [empty-region]"]),
    ])
    func anEmptyLockScreenWarns(json: String, issues: [String]) throws {
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        #expect(decoded.issues.map(\.description) == issues)
    }

    @Test func refusesJSONOverEightTimesTheCompressedSizeAndLintExplains() throws {
        let items = (0..<400).map { _ in #"{"t":17}"# }.joined(separator: ",")
        let json = Array(#"{"v":1,"ls":{"t":11,"c":[\#(items)]}}"#.utf8)
        let compressed = Brotli.compress(json)
        #expect(json.count > 8 * compressed.count)
        let base64 = Data(compressed).base64EncodedString()
        #expect {
            try VoltraDecoder.decode(base64: base64)
        } throws: { error in
            guard let error = error as? UIError else { return false }
            return error.code == .compressionRatio && error.message.contains("decompressed JSON is \(json.count) bytes")
        }
        let linted = try VoltraDecoder.lint(base64: base64)
        #expect(linted.issues.first?.kind == .compressionRatio)
        #expect(linted.issues.first?.message.contains("drops the whole update") == true)
    }
}

@Suite struct LayoutLintTests {
    @Test func lintingALayoutReportsPropsOfTheWrongType() throws {
        let layout = try LayoutForm.parse(Array(#"{"lockScreen":{"type":"VStack","props":{"spacing":"8"},"children":[{"type":"Toggle","props":{"defaultValue":"yes"}}]}}"#.utf8))
        let issues = VoltraDecoder.lint(layout)
        #expect(issues.map(\.path) == ["ls.c[0].p", "ls.p"])
        #expect(issues.allSatisfy { $0.kind == .wrongPropType })
        #expect(issues[0].message.hasPrefix(#"Toggle: defaultValue (dv) is string "yes", expected boolean"#))
        #expect(VoltraDecoder.lint(SpecVectors.orderLayout).isEmpty)
    }
}

@Suite struct ColorLintTests {
    @Test(arguments: [
        ("#38BDF8", true), ("#fff", true), ("#ffff", true), ("38BDF8", true), ("#38BDF8CC", true), ("fff", false),
        ("rgba(0,0,0,0.5)", true), ("hsl(200, 50%, 50%)", true), ("Blue", true), ("bleu", false), ("#12345", false), ("", false),
    ])
    func colorSyntaxFollowsTheDeviceParser(text: String, valid: Bool) {
        #expect(ColorSyntax.isValid(text) == valid)
    }

    @Test func unparseableColorsAreReportedWithTheirPath() throws {
        let json = ##"{"v":1,"ls":{"t":4,"p":{"n":"star","tc":"gold","s":0}},"s":[{"c":"#12345","bg":"linear-gradient(90deg, red, blue)"}],"isl_keyline_tint":"nope"}"##
        let issues = try VoltraDecoder.decode(json: Array(json.utf8)).issues
        #expect(issues.map(\.path) == ["ls.p.tc", "s[0].c", "isl_keyline_tint"])
        #expect(issues.allSatisfy { $0.kind == .invalidColor })
        #expect(issues[0].message.hasPrefix(#"tintColor "gold" is not a color the device parses"#))
    }
}
