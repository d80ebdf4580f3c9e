import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

/// Places where Voltra's device-side parser reads a payload differently from how it was meant, and
/// what Liveline does about each. The device's behaviour is quoted from callstackincubator/voltra at
/// be4e2af, packages/ios-client/ios/shared/ (and ui/Views/ for VoltraText).
@Suite struct DeviceParityTests {
    /// The style properties an element resolved to (empty when none).
    static func style(_ element: UIElement) -> JSONObject {
        if case .style(let style)? = element.prop("style"), let properties = style.properties { return properties }
        return JSONObject()
    }

    static func text(_ s: String, style: UIStyle?) -> UIElement {
        UIElement(.text, props: style.map { [UIProp("style", .style($0))] } ?? [], children: .text(s))
    }

    /// Device: VoltraLiveActivityPayload.swift:93-103 builds the stylesheet with
    /// `stylesheetArray.compactMap { item in if case let .object(dict) = item { return dict }; return nil }`,
    /// so a `null` entry is dropped and every later index names the entry after it; VoltraElement.swift:62-66
    /// resolves `"s": n` as `stylesheet[n]` when `n < stylesheet.count`, else no style.
    @Test func theDecoderReadsTheStylesheetAsTheDeviceDoesAndLintsTheShift() throws {
        let json = #"{"v":1,"ls":{"t":11,"c":[{"t":0,"c":"a","p":{"s":0}},{"t":0,"c":"b","p":{"s":1}}]},"s":[null,{"c":"red"}]}"#
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        guard case .list(let texts)? = decoded.layout[.lockScreen]?.children else { Issue.record("no list"); return }
        // "a" meant no style and gets s[1]; "b" meant s[1] and gets nothing.
        #expect(Self.style(texts[0]) == ["color": "red"])
        #expect(texts[1].prop("style") == nil)
        #expect(decoded.issues.map(\.description) == [
            """
            s[0]: null, not a style object: the device drops it from the stylesheet, so style index 0 and every later one \
            resolve to a later entry than the one meant (or to none). Voltra's renderer writes null for style={null}; \
            Liveline's compact mode leaves such a style out. [stylesheet-shift]
            """,
            "ls.c[1].p.s: style index 1 is outside s (1 entries once the device drops what is not an object); no style [bad-reference]",
        ])
    }

    /// Compact mode never writes a non-object into `s`: `style: null` is left out, which the device
    /// renders the same (VoltraElement.swift:54-57: no `style` prop, no style), and later indices stay right.
    @Test func compactModeWritesNoNullIntoTheStylesheet() throws {
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([
            Self.text("a", style: UIStyle(nil)), Self.text("b", style: UIStyle(["color": "red"])),
        ])))])
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        #expect(compact.jsonString == #"{"v":1,"ls":{"t":11,"c":[{"t":0,"c":"a"},{"t":0,"c":"b","p":{"s":0}}]},"s":[{"c":"red"}]}"#)
        // No compact candidate (structural or inline styles) writes `null` for the style.
        for candidate in VoltraEncoder.candidates(layout, mode: .compact).dropFirst() {
            #expect(!String(decoding: candidate.json, as: UTF8.self).contains("null"), "\(String(decoding: candidate.json, as: UTF8.self))")
        }
        let decoded = try VoltraDecoder.decode(base64: compact.base64)
        #expect(decoded.issues.isEmpty)
        guard case .list(let texts)? = decoded.layout[.lockScreen]?.children else { Issue.record("no list"); return }
        #expect(texts[0].prop("style") == nil && Self.style(texts[1]) == ["color": "red"])
    }

    /// Voltra's renderer keeps its stylesheet in a JavaScript Map keyed by the style value
    /// (packages/core/src/renderer/stylesheet-registry.ts:39-50: `styleToIndex.get(styleObject)`,
    /// else push): every `style={null}` is the same key, so all share one `null` entry. Compatibility
    /// mode does the same (it wrote a fresh `null` per element), keeps Voltra's bytes, and lint warns
    /// about the shift those bytes cause on the device.
    @Test func compatibilityModeSharesOneNullSlotLikeVoltraAndWarns() throws {
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.vStack, children: .list([
            Self.text("a", style: UIStyle(nil)), Self.text("b", style: UIStyle(nil)), Self.text("c", style: UIStyle(["color": "red"])),
        ])))])
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(compat.jsonString == #"{"v":1,"ls":{"t":11,"c":[{"t":0,"c":"a","p":{"s":0}},{"t":0,"c":"b","p":{"s":0}},{"t":0,"c":"c","p":{"s":1}}]},"s":[null,{"c":"red"}]}"#)
        let issues = VoltraDecoder.lint(layout)
        #expect(issues.map(\.kind) == [.stylesheetShift, .badReference])
        #expect(issues.first?.path == "s[0]")
    }

    /// Device: VoltraText.swift:14-19 shows `element.children` only when it is `.text(text)`, else "";
    /// VoltraNode.swift:37-39 makes an array of children a `.array` (and VoltraNode.swift:41-50 an
    /// object an `.element`), so a Text whose children are an array or a node is empty.
    @Test(arguments: [#"["Gate ","B12"]"#, #"[]"#, #"{"t":0,"c":"B12"}"#])
    func aTextWhoseChildrenAreNotAStringIsEmptyAndLinted(children: String) throws {
        let decoded = try VoltraDecoder.decode(json: Array(#"{"v":1,"ls":{"t":0,"c":\#(children)}}"#.utf8))
        #expect(LayoutForm.json(decoded.layout) == ["lockScreen": ["type": "Text"]])
        let kind = children.hasPrefix("[") ? "an array" : "a node"
        #expect(decoded.issues.map(\.description) == [
            "ls.c: Text children are \(kind), not a string: the device shows an empty Text. Join the text into one string. [malformed-node]",
        ])
    }
}
