import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

/// Payloads whose shared elements expand exponentially or nest without end are refused with the
/// limit they pass, in time linear in their size and within a small stack.
@Suite struct LayoutLimitsTests {
    /// `e[0]` a Text, `e[i]` an HStack of `e[i-1]` twice: about 1 KB that expands to 2^levels elements.
    static func doubling(levels: Int) -> String {
        var entries = [#"{"t":0,"c":"x"}"#]
        for i in 1..<levels { entries.append(#"{"t":12,"c":[{"$r":\#(i - 1)},{"$r":\#(i - 1)}]}"#) }
        return #"{"v":1,"ls":{"$r":\#(levels - 1)},"e":[\#(entries.joined(separator: ","))]}"#
    }

    /// `e[i]` a VStack holding `{"$r": i+1}`, `length` entries ending in a Text: nesting as deep as it is long.
    static func chain(length: Int) -> String {
        let entries = (0..<length - 1).map { #"{"t":11,"c":{"$r":\#($0 + 1)}}"# } + [#"{"t":0,"c":"end"}"#]
        return #"{"v":1,"ls":{"$r":0},"e":[\#(entries.joined(separator: ","))]}"#
    }

    /// Runs `body` on a thread with a 1 MiB stack, the size of the simulator's event loop threads.
    static func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    static func decodeError(_ json: String) -> UIError? {
        do { _ = try VoltraDecoder.decode(json: Array(json.utf8)); return nil } catch { return error }
    }

    @Test func aDoublingPayloadIsRefusedWithTheElementLimit() throws {
        let json = Self.doubling(levels: 30)
        #expect(json.utf8.count < 1200)
        let error = try #require(Self.decodeError(json))
        #expect(error.code == .invalidPayload)
        #expect(error.message.hasPrefix("layout expands to more than 10000 elements (at e[13]); the device expands every $r in full"))
        // The same through the compressed route and lint.
        let base64 = Data(Brotli.compress(Array(json.utf8))).base64EncodedString()
        #expect(throws: error) { try VoltraDecoder.decode(base64: base64) }
        #expect(throws: error) { try VoltraDecoder.lint(base64: base64) }
    }

    @Test func aDoublingPayloadWithinTheLimitDecodesToSharedElements() throws {
        let decoded = try VoltraDecoder.decode(json: Array(Self.doubling(levels: 13).utf8))   // 8191 elements
        #expect(decoded.issues.isEmpty)
        let root = try #require(decoded.layout[.lockScreen])
        guard case .list(let pair) = root.children else { Issue.record("no list"); return }
        #expect(pair.count == 2 && pair[0] === pair[1])
        // The JSON form expands it, within the limit (LivelinePreviewTests preview it too).
        #expect(LayoutForm.json(decoded.layout).serialized().count > 8191 * 10)
    }

    @Test func aLongReferenceChainIsRefusedWithTheDepthLimitOnASmallStack() async throws {
        let json = Self.chain(length: 10_000)
        let error = try #require(await Self.onSmallStack { Self.decodeError(json) })
        #expect(error.code == .invalidPayload)
        #expect(error.message.hasPrefix("layout nests more than 64 levels deep (at e[64]); the device's parser recurses once per level"))
    }

    @Test func aChainOfReferencesToReferencesIsFollowedWithoutRecursing() async throws {
        // e[i] = {"$r": i+1}: one element, reached through 9,999 references.
        let entries = (0..<9_999).map { #"{"$r":\#($0 + 1)}"# } + [#"{"t":0,"c":"end"}"#]
        let json = #"{"v":1,"ls":{"$r":0},"isl_min":{"$r":5000},"e":[\#(entries.joined(separator: ","))]}"#
        let layout = await Self.onSmallStack { try? VoltraDecoder.decode(json: Array(json.utf8)) }.map(\.layout)
        let end = try #require(layout?[.lockScreen])
        #expect(LayoutForm.json(end) == ["type": "Text", "children": "end"])
        #expect(layout?[.islandMinimal] === end)
    }

    @Test(arguments: [64, 65])
    func depthIsCountedInTheExpandedTree(levels: Int) throws {
        // Nested directly ...
        var node = #"{"t":0,"c":"x"}"#
        for _ in 1..<levels { node = #"{"t":11,"c":\#(node)}"# }
        let direct = Self.decodeError(#"{"v":1,"ls":\#(node)}"#)
        // ... and as a shared element `levels - 1` deep, read at the top of ls, then used one level down.
        var inner = #"{"t":0,"c":"x"}"#
        for _ in 1..<(levels - 1) { inner = #"{"t":11,"c":\#(inner)}"# }
        let shared = Self.decodeError(#"{"v":1,"ls":{"$r":0},"isl_exp_c":{"t":11,"c":{"$r":0}},"e":[\#(inner)]}"#)
        if levels <= LayoutLimits.maxDepth {
            #expect(direct == nil && shared == nil)
        } else {
            #expect(direct?.message.hasPrefix("layout nests more than 64 levels deep (at ls" + String(repeating: ".c", count: 64) + ")") == true)
            #expect(shared?.message.hasPrefix("layout nests more than 64 levels deep (at isl_exp_c.c)") == true)
        }
    }

    @Test func theJSONFormIsHeldToTheSameLimits() {
        var node = #"{"type":"Text","children":"x"}"#
        for _ in 0..<64 { node = #"{"type":"VStack","children":\#(node)}"# }
        #expect {
            try LayoutForm.parse(Array(#"{"lockScreen":\#(node)}"#.utf8))
        } throws: { error in
            (error as? UIError)?.code == .invalidLayout
                && (error as? UIError)?.message.hasPrefix("layout nests more than 64 levels deep (at lockScreen" + String(repeating: ".children", count: 64) + ")") == true
        }
        let many = Array(repeating: #"{"type":"Divider"}"#, count: 10_000).joined(separator: ",")
        #expect {
            try LayoutForm.parse(Array(#"{"lockScreen":{"type":"VStack","children":[\#(many)]}}"#.utf8))
        } throws: { error in
            (error as? UIError)?.message.hasPrefix("layout expands to more than 10000 elements (at lockScreen.children[9999])") == true
        }
    }

    @Test func aLayoutBuiltInSwiftThatSharesElementsIsMeasuredOnce() {
        var element = UIElement(.text, children: .text("x"))
        for _ in 0..<40 { element = UIElement(.hStack, children: .list([element, element])) }
        let layout = UILayout(regions: [.lockScreen: .element(element)])
        #expect {
            try VoltraAttributes.ContentState(layout: layout)
        } throws: { error in
            (error as? UIError)?.code == .invalidLayout && (error as? UIError)?.message.hasPrefix("layout expands to more than 10000 elements;") == true
        }
        #expect(throws: UIError.self) { try LayoutLimits.check(UILayout(regions: [.lockScreen: .element(element)])) }
    }
}
