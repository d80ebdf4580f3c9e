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
}
