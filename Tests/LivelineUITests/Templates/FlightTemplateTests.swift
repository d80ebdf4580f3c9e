import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct FlightTemplateTests {
    static let departure = Date(timeIntervalSince1970: 1_767_258_000)  // 2026-01-01 09:00 UTC
    static let attributes = FlightAttributes.example(departure: departure)

    static let states: [FlightAttributes.ContentState] = [
        .init(status: .scheduled, gate: nil, boardingTime: departure.addingTimeInterval(-1800)),
        .init(status: .delayed, gate: "B12", boardingTime: departure.addingTimeInterval(900), delayMinutes: 45),
        .init(status: .boarding, gate: "B12", boardingTime: departure.addingTimeInterval(-1800), isBoarding: true),
    ]

    @Test(arguments: 0..<states.count)
    func everyStateRendersWithinBudgetAndDecodesCleanly(index: Int) throws {
        let state = Self.states[index]
        let template = FlightTemplate(timeZone: TimeZone(secondsFromGMT: 0)!)
        let content = try template.contentState(attributes: Self.attributes, state: state)
        let decoded = try VoltraDecoder.decode(base64: content.uiJsonData)
        #expect(decoded.issues.isEmpty)
        #expect(Set(decoded.layout.regions.keys) == Set(Region.allCases).subtracting([.supplementalSmall]))
        let form = LayoutForm.json(decoded.layout).jsonString
        #expect(form.contains(#""LIS""#) && form.contains(#""ZRH""#) && form.contains("LL 1234 · Liveline Air"))
        #expect(form.contains(#""children":"08:30""#) == (index != 1))
        #expect(form.contains("+45 min") == (index == 1))
        #expect(form.contains(#""title":"Boarding""#) == state.isBoarding)
        #expect(form.contains(#""endAtMs":\#(Int(state.boardingTime.timeIntervalSince1970 * 1000))"#) == !state.isBoarding)
        #expect(decoded.layout.keylineTint == "#38BDF8")
        #expect(decoded.layout.lockScreenBackgroundTint == "#0B1220")
    }

    @Test(arguments: 0..<states.count)
    func compactIsSmallerThanCompatibleOnTheFlightTracker(index: Int) {
        let layout = FlightTemplate().layout(attributes: Self.attributes, state: Self.states[index])
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(compact.compressed.count < compat.compressed.count)
        // Compact output is a valid payload the device reads back to the same tree.
        let decoded = try? VoltraDecoder.decode(base64: compact.base64)
        #expect(decoded.map { LayoutForm.json($0.layout) } == LayoutForm.json(layout))
    }

    @Test func voltraAttributesEncodeAsThePushToStartExpects() throws {
        let attributes = try JSONValue(encoding: VoltraAttributes(name: "flight-LL1234", deepLinkUrl: "liveline://flights/LL1234"))
        #expect(attributes.objectValue?.count == 2)
        #expect(attributes["name"] == "flight-LL1234")
        #expect(attributes["deepLinkUrl"] == "liveline://flights/LL1234")
        #expect(try JSONValue(encoding: VoltraAttributes(name: "x")).jsonString == #"{"name":"x"}"#)
        #expect(VoltraAttributes.attributesType == "VoltraAttributes")
        #expect(JSONValue.object(VoltraPayload.attributes(name: "n")).jsonString == ##"{"name":"n"}"##)
        let state = try VoltraPayload.contentState(layoutJSON: Array(SpecVectors.helloForm.utf8), mode: .compatible)
        #expect(state.keys == ["uiJsonData"])
        #expect(state["uiJsonData"] == .string(SpecVectors.helloBase64))
    }
}
