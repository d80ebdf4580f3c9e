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
