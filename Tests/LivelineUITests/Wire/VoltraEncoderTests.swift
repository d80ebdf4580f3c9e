import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct VoltraEncoderTests {
    @Test(arguments: SpecVectors.all.map(\.name))
    func compatibleModeMatchesTheSpecExamplesByteForByte(name: String) {
        let vector = SpecVectors.all.first { $0.name == name }!
        let encoded = VoltraEncoder.encode(vector.layout, mode: .compatible)
        #expect(encoded.jsonString == vector.json)
        #expect(encoded.quality == 2)
        #expect(Brotli.decompress(encoded.compressed, limit: 1 << 16) == Array(vector.json.utf8))
    }

    @Test func compatibleModeReproducesTheSeedString() {
        let encoded = VoltraEncoder.encode(SpecVectors.all[0].layout, mode: .compatible)
        #expect(encoded.base64 == SpecVectors.helloBase64)
    }

    @Test(arguments: SpecVectors.all.map(\.name))
    func compactModeIsNeverLargerThanCompatible(name: String) {
        let layout = SpecVectors.all.first { $0.name == name }!.layout
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(compact.mode == .compact)
        #expect(compact.compressed.count <= compat.compressed.count)
        #expect(compact.json.count <= VoltraBudget.maxRatio * compact.compressed.count)
    }

    @Test func styleIdentityGivesOneEntryPerObjectInCompatibleMode() throws {
        let shared = UIStyle(["color": "red"])
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([
            UIElement(.text, props: [UIProp("style", .style(shared))], children: .text("a")),
            UIElement(.text, props: [UIProp("style", .style(shared))], children: .text("b")),
            UIElement(.text, props: [UIProp("style", .style(UIStyle(["color": "red"])))], children: .text("c")),
        ])))])
        let compat = JSONValue.object(VoltraEncoder.json(layout, mode: .compatible)).jsonString
        #expect(compat.hasSuffix(#""s":[{"c":"red"},{"c":"red"}]}"#))
        let compact = JSONValue.object(VoltraEncoder.json(layout, mode: .compact)).jsonString
        #expect(compact.hasSuffix(#""s":[{"c":"red"}]}"#))
        #expect(compact.contains(#"{"t":0,"c":"c","p":{"s":0}}"#))
    }

    @Test func edgeCasesOfNodeEncoding() {
        let layout = UILayout(
            regions: [
                .lockScreen: .element(UIElement(.vStack, id: "root", props: [UIProp("testID", .value("x")), UIProp("flag", .undefined)],
                                                children: .list([UIElement(.text), UIElement(.spacer, props: [UIProp("style", .style(UIStyle(nil)))])]))),
                .islandMinimal: .element(UIElement(.divider, id: 7, props: [UIProp("foo", .undefined)])),
            ],
            lockScreenBackgroundTint: "#000", keylineTint: "")
        let json = JSONValue.object(VoltraEncoder.json(layout, mode: .compatible)).jsonString
        #expect(json == ##"{"v":1,"ls":{"t":11,"i":"root","c":[{"t":0,"c":""},{"t":16,"p":{"s":0}}],"p":{"testID":"x"}},"isl_min":{"t":17,"p":{}},"s":[null],"ls_background_tint":"#000"}"##)
    }

    @Test func structuralElementDedupSharesRepeatedSubtrees() throws {
        func badge() -> UIElement {
            UIElement(.hStack, children: .list([
                UIElement(.symbol, props: [UIProp("name", .value("airplane.departure")), UIProp("tintColor", .value("#38BDF8"))]),
                UIElement(.text, props: [UIProp("style", .style(UIStyle(["fontWeight": "bold", "color": "#F8FAFC"])))], children: .text("LIS → ZRH")),
            ]))
        }
        let layout = UILayout(regions: [.lockScreen: .element(badge()), .islandExpandedCenter: .element(badge()), .islandMinimal: .element(badge())])
        let root = VoltraEncoder.json(layout, mode: .compact)
        let json = JSONValue.object(root)
        #expect(root["e"]?.arrayValue?.count == 1)
        #expect(root["ls"] == ["$r": 0])
        #expect(root["isl_min"] == ["$r": 0])
        // Decoding resolves the references back to the same tree in every region.
        let decoded = try VoltraDecoder.decode(json: json.serialized()).layout
        for region in [Region.lockScreen, .islandExpandedCenter, .islandMinimal] {
            #expect(LayoutForm.json(decoded[region]!) == LayoutForm.json(badge()))
        }
    }
}
