import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

/// §1.7 duplicate rules in compatibility mode, and structural dedup in compact mode.
@Suite struct ElementSharingTests {
    static func symbol() -> UIElement {
        UIElement(.symbol, props: [UIProp("name", .value("airplane.circle.fill")), UIProp("tintColor", .value("#38BDF8")),
                                   UIProp("size", .value(22)), UIProp("weight", .value("semibold"))])
    }

    @Test func anElementOnceInEachOfTwoRegionsIsNotSharedInCompatibleMode() {
        let star = Self.symbol()
        let layout = UILayout(regions: [
            .lockScreen: .element(UIElement(.vStack, children: .single(star))),
            .islandExpandedCenter: .element(UIElement(.hStack, children: .single(star))),
        ])
        let root = VoltraEncoder.json(layout, mode: .compatible)
        #expect(root["e"] == nil)
        #expect(root["ls"]?["c"] == root["isl_exp_c"]?["c"])
    }

    @Test func anElementTwiceInOneRegionIsSharedAndNestedDuplicatesGetLowerIndices() {
        let inner = Self.symbol()
        let outer = UIElement(.hStack, children: .list([inner, UIElement(.text, children: .text("LIS"))]))
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([outer, outer])))])
        let json = JSONValue.object(VoltraEncoder.json(layout, mode: .compatible)).jsonString
        // `inner` and the Text occur twice in the region's tree (inside both uses of `outer`), so
        // they are shared too, and rendered (appended to `e`) before `outer`.
        #expect(json == ##"{"v":1,"ls":{"t":11,"c":[{"$r":2},{"$r":2}]},"e":[{"t":4,"p":{"n":"airplane.circle.fill","tc":"#38BDF8","sz":22,"wt":"semibold"}},{"t":0,"c":"LIS"},{"t":12,"c":[{"$r":0},{"$r":1}]}]}"##)
    }

    @Test func compactModeDoesNotReferenceASubtreeThatOnlyRepeatsInsideASharedOne() throws {
        func outer() -> UIElement { UIElement(.hStack, children: .list([Self.symbol(), UIElement(.text, children: .text("Lisbon to Zurich"))])) }
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([outer(), outer()])))])
        let root = VoltraEncoder.json(layout, mode: .compact)
        #expect(root["e"]?.arrayValue?.count == 1)
        #expect(root["e"]?.arrayValue?.first?["t"] == 12)
        let decoded = try VoltraDecoder.decode(json: JSONValue.object(root).serialized())
        #expect(LayoutForm.json(decoded.layout) == LayoutForm.json(layout))
    }

    @Test func compactModeLeavesSmallRepeatsInline() {
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([
            UIElement(.spacer), UIElement(.text, children: .text("a")), UIElement(.spacer),
        ])))])
        #expect(VoltraEncoder.json(layout, mode: .compact)["e"] == nil)
    }

    @Test(arguments: LayoutFormTests.everyComponent.map(\.0))
    func compactIsNeverLargerThanCompatibleForAnyComponent(name: String) throws {
        let node = LayoutFormTests.everyComponent.first { $0.0 == name }!.1
        let layout = try LayoutForm.parse(Array(#"{"lockScreen":{"type":"VStack","children":[\#(node),\#(node)]},"island":{"minimal":\#(node)}}"#.utf8))
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(compact.compressed.count <= compat.compressed.count)
        #expect(LayoutForm.json(try VoltraDecoder.decode(base64: compact.base64).layout) == LayoutForm.json(layout))
    }
}
