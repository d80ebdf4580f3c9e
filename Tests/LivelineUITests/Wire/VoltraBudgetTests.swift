import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct VoltraBudgetTests {
    /// Text that brotli cannot shrink much: deterministic pseudo-random hex.
    static func noise(_ count: Int, seed: UInt64) -> String {
        var state = seed
        return String((0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Array("0123456789abcdef")[Int(state >> 60)]
        })
    }

    static func bigLayout() -> UILayout {
        UILayout(regions: [
            .lockScreen: .element(UIElement(.vStack, children: .list([
                UIElement(.text, children: .text(noise(4000, seed: 1))),
                UIElement(.hStack, children: .list([UIElement(.text, children: .text(noise(1500, seed: 2)))])),
            ]))),
            .islandMinimal: .element(UIElement(.text, children: .text(noise(300, seed: 3)))),
        ])
    }

    @Test func overBudgetErrorListsRegionsAndLargestSubtrees() {
        let encoded = VoltraEncoder.encode(Self.bigLayout(), mode: .compatible)
        #expect(encoded.base64.count > VoltraBudget.base64Limit)
        #expect {
            try VoltraBudget.check(encoded)
        } throws: { error in
            guard let error = error as? UIError, error.code == .overBudget else { return false }
            let m = error.message
            return m.hasPrefix("UI payload is \(encoded.base64.count) bytes of base64, over the budget of 3345 bytes")
                && m.contains("Bytes by region (JSON / brotli alone): ls ")
                && m.contains(", isl_min ")
                && m.contains("Largest subtrees (JSON bytes): ls:VStack > Text[0] ")
                && m.contains("ls:VStack > HStack[1] > Text[0] ")
        }
    }

    @Test func withinBudgetPasses() throws {
        try VoltraBudget.check(VoltraEncoder.encode(SpecVectors.all[1].layout))
    }

    @Test func bodyOverFourKilobytesIsAnError() throws {
        let encoded = VoltraEncoder.encode(SpecVectors.all[1].layout)
        try VoltraBudget.checkBody(Array(repeating: 32, count: 4096), encoded: encoded)
        #expect {
            try VoltraBudget.checkBody(Array(repeating: 32, count: 4097), encoded: encoded)
        } throws: { error in
            guard let error = error as? UIError else { return false }
            return error.code == .bodyTooLarge
                && error.message.hasPrefix("APNs body is 4097 bytes, over ActivityKit's 4096-byte limit; uiJsonData takes \(encoded.base64.count) bytes")
        }
    }

    @Test func ratioCheckNamesTheSizes() {
        let items = (0..<400).map { _ in #"{"t":17}"# }.joined(separator: ",")
        let layout = try! VoltraDecoder.decode(json: Array(#"{"v":1,"ls":{"t":11,"c":[\#(items)]}}"#.utf8)).layout
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect {
            try VoltraBudget.check(compat)
        } throws: { error in
            (error as? UIError)?.code == .compressionRatio && (error as? UIError)?.message.contains("more than 8×") == true
        }
        // No variant of 400 identical Dividers inflates within 8:1, so compact mode cannot fix it either
        // and the check still refuses it.
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        #expect(compact.compressed.count <= compat.compressed.count)
        #expect(throws: UIError.self) { try VoltraBudget.check(compact) }
    }

    /// A JSON-form Text of `count` pseudo-random hex digits: about `count` bytes of payload JSON that
    /// brotli cannot shrink much.
    static func noiseForm(_ count: Int) -> [UInt8] {
        Array(#"{"lockScreen":{"type":"VStack","children":[{"type":"Text","children":"\#(noise(count, seed: 4))"}]},"island":{"minimal":{"type":"Text","children":"x"}}}"#.utf8)
    }

    @Test func theLargestJSONThatCanFitIsEightTimesTheCompressedBytesBase64Allows() {
        #expect(VoltraBudget.maxCompressedBytes == 2508)
        #expect(Data(count: 2508).base64EncodedString().count == 3344 && Data(count: 2509).base64EncodedString().count == 3348)
        #expect(VoltraBudget.maxJSONBytes == 20_064)
    }

    /// A layout whose JSON alone is past what any payload within the budget holds is refused before
    /// brotli runs (quality 11 on megabytes takes seconds), naming the sizes by region.
    @Test(arguments: EncodingMode.allCases)
    func aLayoutWhoseJSONCannotFitIsRefusedBeforeCompressing(mode: EncodingMode) throws {
        let layout = try LayoutForm.parse(Self.noiseForm(100_000))
        let json = VoltraEncoder.candidates(layout, mode: mode).map(\.json.count).min()!
        #expect(json > 100_000)
        let which = switch mode {
        case .compact: "the smallest of its compact encodings"
        case .fanOut: "the smallest of its fan-out encodings"
        case .compatible: "compatible mode"
        }
        #expect {
            try VoltraAttributes.ContentState(layout: layout, mode: mode)
        } throws: { error in
            guard let error = error as? UIError, error.code == .overBudget else { return false }
            return error.message.hasPrefix("UI JSON is \(json) bytes (\(which)), more than the 20064 bytes any payload within the budget can hold")
                && error.message.contains("Nothing was compressed.")
                && error.message.hasSuffix("JSON bytes by region: ls \(json - 39), isl_min 15")
        }
        // Just under the limit, the layout is compressed and refused by the budget itself.
        let near = try LayoutForm.parse(Self.noiseForm(19_000))
        try VoltraBudget.checkBeforeEncoding(near, mode: mode)
        #expect(throws: UIError.self) { try VoltraAttributes.ContentState(layout: near, mode: mode) }
    }

    /// More than 4 MiB of layout text is refused before it is parsed.
    @Test func aLayoutTextOverFourMegabytesIsRefusedBeforeParsing() {
        let text = Array(#"{"lockScreen":{"type":"Text","children":"\#(String(repeating: "a", count: 5 << 20))"}}"#.utf8)
        #expect {
            try LayoutForm.parse(text)
        } throws: { error in
            guard let error = error as? UIError, error.code == .overBudget else { return false }
            return error.message.hasPrefix("layout is \(text.count) bytes of JSON, over the limit of 4194304 bytes")
                && error.message.contains("at most 20064 bytes of payload JSON for 3345 bytes of base64); nothing was parsed.")
        }
    }

    /// `ui decode` showed a uiJsonData string over the budget without a word.
    @Test func decodingAStringOverTheBudgetWarns() throws {
        let encoded = VoltraEncoder.encode(Self.bigLayout(), mode: .compatible)
        let linted = try VoltraDecoder.lint(base64: encoded.base64)
        let issue = try #require(linted.issues.first)
        #expect(issue.kind == .overBudget && issue.path == "uiJsonData")
        #expect(issue.message.hasPrefix("\(encoded.base64.count) bytes of base64, over the budget of 3345 bytes"))
        // Within the budget: no warning.
        #expect(try VoltraDecoder.lint(base64: VoltraEncoder.encode(SpecVectors.all[1].layout).base64).issues.isEmpty)
    }

    @Test func decodingAPayloadJSONThatCannotBeSentWarns() throws {
        let huge = VoltraEncoder.encode(try LayoutForm.parse(Self.noiseForm(30_000)), mode: .compatible).json
        let tooLong = try #require(try VoltraDecoder.lint(json: huge).issues.first)
        #expect(tooLong.kind == .overBudget)
        #expect(tooLong.message.hasPrefix("JSON is \(huge.count) bytes, more than the 20064 bytes any payload within the budget can hold"))
        let noisy = VoltraEncoder.encode(try LayoutForm.parse(Self.noiseForm(8_000)), mode: .compatible).json
        let incompressible = try #require(try VoltraDecoder.lint(json: noisy).issues.first)
        #expect(incompressible.kind == .overBudget)
        #expect(incompressible.message.hasPrefix("JSON is \(noisy.count) bytes, "))
        #expect(incompressible.message.contains("bytes of base64 even at brotli quality 11, over the budget of 3345 bytes"))
        #expect(try VoltraDecoder.lint(json: Array(SpecVectors.rideJSON.utf8)).issues.isEmpty)
    }
}
