import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

/// `.fanOut`: the fan-out JSON (no `e`, styles inline) compressed once at `BrotliSettings.fanOut`, for
/// one layout per user.
@Suite struct FanOutEncodingTests {
    static let departure = Date(timeIntervalSince1970: 1_767_258_000)

    /// Six passengers' flight trackers: name and seat (in the header line), flight, gate, delay and
    /// boarding time differ, across the three kinds of state.
    static let rows: [(flight: String, passenger: String, state: FlightAttributes.ContentState)] = [
        ("LL 1234", "Ana Silva · 12A", .init(status: .scheduled, gate: nil, boardingTime: departure.addingTimeInterval(-1800))),
        ("LL 1234", "Jonas Weber · 31F", .init(status: .scheduled, gate: "A7", boardingTime: departure.addingTimeInterval(-1500))),
        ("LL 2020", "Mei Tanaka · 4C", .init(status: .delayed, gate: "B12", boardingTime: departure.addingTimeInterval(900), delayMinutes: 45)),
        ("LL 2020", "Omar Haddad · 22D", .init(status: .delayed, gate: "B3", boardingTime: departure.addingTimeInterval(300), delayMinutes: 5)),
        ("LL 0901", "Zoë Novak · 17B", .init(status: .boarding, gate: "C40", boardingTime: departure.addingTimeInterval(-1800), isBoarding: true)),
        ("LL 0901", "Kwame Mensah · 2A", .init(status: .boarding, gate: "D1", boardingTime: departure.addingTimeInterval(-1200), isBoarding: true)),
    ]
    static let users: [(attributes: FlightAttributes, state: FlightAttributes.ContentState)] = rows.map { row in
        (FlightAttributes(flightNumber: row.flight, origin: "LIS", destination: "ZRH", airline: row.passenger, departure: departure), row.state)
    }

    static func layout(_ user: Int) -> UILayout {
        FlightTemplate(timeZone: TimeZone(secondsFromGMT: 0)!).layout(attributes: users[user].attributes, state: users[user].state)
    }

    @Test(arguments: 0..<users.count)
    func decodesToTheSameLayoutAsCompactMode(user: Int) throws {
        let layout = Self.layout(user)
        let fanOut = VoltraEncoder.encode(layout, mode: .fanOut)
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        #expect(fanOut.mode == .fanOut)
        let decoded = try VoltraDecoder.decode(base64: fanOut.base64)
        #expect(decoded.issues.isEmpty, "\(decoded.issues)")
        let fromCompact = try VoltraDecoder.decode(base64: compact.base64)
        #expect(LayoutForm.json(decoded.layout) == LayoutForm.json(fromCompact.layout))
        #expect(LayoutForm.json(decoded.layout) == LayoutForm.json(layout))
        // Each user's own strings made it through.
        let text = String(decoding: decoded.json, as: UTF8.self)
        #expect(text.contains(Self.users[user].attributes.airline))
        if let gate = Self.users[user].state.gate { #expect(text.contains(gate)) }
    }

    @Test(arguments: 0..<users.count)
    func isAtMostEightTenthsOfTheCompatibleBytes(user: Int) throws {
        let layout = Self.layout(user)
        let fanOut = VoltraEncoder.encode(layout, mode: .fanOut)
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(Double(fanOut.compressed.count) <= 0.80 * Double(compat.compressed.count),
                "\(fanOut.compressed.count) of \(compat.compressed.count) compatible bytes")
        // The chosen settings were used (the fan-out JSON won), within the device's 8:1 ratio and the budget.
        #expect(fanOut.quality == BrotliSettings.fanOut.quality && fanOut.window == BrotliSettings.fanOut.window)
        #expect(fanOut.json == JSONValue.object(VoltraEncoder.json(layout, mode: .fanOut)).serialized())
        try VoltraBudget.check(fanOut)
        _ = try VoltraAttributes.ContentState(layout: layout, mode: .fanOut)
    }

    @Test func theModeIsTheExplicitEncodeAtTheFanOutSettings() {
        let layout = Self.layout(2)
        #expect(VoltraEncoder.encode(layout, mode: .fanOut) == VoltraEncoder.encode(layout, fanOut: .fanOut))
        // Its stream is a plain brotli stream of compact's JSON: no dictionary, standard window.
        let encoded = VoltraEncoder.encode(layout, fanOut: .fanOut)
        #expect(Brotli.decompress(encoded.compressed, limit: encoded.json.count) == encoded.json)
        #expect((10...24).contains(BrotliSettings.fanOut.window))
    }

    /// Where compact's JSON does not win (a payload too short to compress), the compatible stream is
    /// sent, so the mode is never larger than `.compatible`.
    @Test func fallsBackToTheCompatibleStreamWhenThatIsSmaller() throws {
        let layout = try LayoutForm.parse(Array(#"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#.utf8))
        let fanOut = VoltraEncoder.encode(layout, fanOut: BrotliSettings(quality: 0, window: 10))
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(fanOut.mode == .fanOut)
        #expect(fanOut.compressed.count <= compat.compressed.count)
        for quality in [0, 2, 5, 9, 11] as [Int32] {
            for layout in [layout, Self.layout(0)] {
                let encoded = VoltraEncoder.encode(layout, fanOut: BrotliSettings(quality: quality))
                #expect(encoded.compressed.count <= VoltraEncoder.encode(layout, mode: .compatible).compressed.count)
                #expect(LayoutForm.json(try VoltraDecoder.decode(base64: encoded.base64).layout) == LayoutForm.json(layout))
            }
        }
    }

    /// The fan-out JSON is valid v1 as the device reads it: no element table, no stylesheet, every
    /// `p.s` an inline style object (VoltraElement.swift accepts an object there), the same layout back.
    @Test(arguments: 0..<users.count)
    func theFanOutJSONHasNoTablesAndInlineStyles(user: Int) throws {
        let layout = Self.layout(user)
        let root = VoltraEncoder.json(layout, mode: .fanOut)
        #expect(root["e"] == nil && root["s"] == nil)
        #expect(Array(root.keys.prefix(2)) == ["v", "ls"] && root["v"] == 1)
        let text = JSONValue.object(root).jsonString
        #expect(!text.contains("\"$r\"") && !text.contains("null"))
        var styles = 0
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let object):
                if case .object(let props)? = object["p"], let style = props["s"] {
                    styles += 1
                    guard case .object(let members) = style, !members.isEmpty else { Issue.record("p.s is \(style)"); return }
                }
                object.members.forEach { walk($0.value) }
            case .array(let list): list.forEach(walk)
            default: break
            }
        }
        walk(.object(root))
        #expect(styles >= 10)
        let decoded = try VoltraDecoder.decode(json: Array(text.utf8))
        #expect(decoded.issues.isEmpty, "\(decoded.issues)")
        #expect(LayoutForm.json(decoded.layout) == LayoutForm.json(layout))
        // Through the simulator's path too: base64 and the device's plain brotli decoder, bounded at 8:1.
        let encoded = VoltraEncoder.encode(layout, mode: .fanOut)
        #expect(encoded.json == Array(text.utf8))
        #expect(LayoutForm.json(try VoltraDecoder.decode(base64: encoded.base64).layout) == LayoutForm.json(layout))
    }

    /// A layout repeating one incompressible subtree: written out twenty times the fan-out JSON is over
    /// the device's 8:1 ratio, so the mode sends compact's deduplicated JSON (one copy in `e`, twenty `$r`)
    /// at the same settings, which fits; the compatible stream (twenty copies too) does not.
    @Test func tooRepetitiveForTheRatioFallsBackToCompactsJSONAtTheSameSettings() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let noise = String((0..<300).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return alphabet[Int(seed >> 33) % alphabet.count]
        })
        let item = #"{"type":"VStack","children":[{"type":"Text","children":"\#(noise)"},{"type":"Spacer"}]}"#
        let form = #"{"lockScreen":{"type":"VStack","children":["# + Array(repeating: item, count: 20).joined(separator: ",") + "]}}"
        let layout = try LayoutForm.parse(Array(form.utf8))
        let flat = JSONValue.object(VoltraEncoder.json(layout, mode: .fanOut)).serialized()
        #expect(flat.count > VoltraBudget.maxRatio * Brotli.compress(flat, .fanOut).count)
        let encoded = VoltraEncoder.encode(layout, mode: .fanOut)
        #expect(encoded.mode == .fanOut && encoded.quality == BrotliSettings.fanOut.quality)
        #expect(encoded.json == JSONValue.object(VoltraEncoder.json(layout, mode: .compact)).serialized())
        #expect(encoded.jsonString.contains("\"e\":["))
        try VoltraBudget.checkRatio(encoded)
        #expect(LayoutForm.json(try VoltraDecoder.decode(base64: encoded.base64).layout) == LayoutForm.json(layout))
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        #expect(compat.json.count > VoltraBudget.maxRatio * compat.compressed.count)
        try VoltraBudget.checkBeforeEncoding(layout, mode: .fanOut)
    }

    /// The encoder parameters the bench measures give plain brotli streams the device inflates, except
    /// large-window mode, which its decoder refuses; quality-and-window settings stay Voltra's one-shot call.
    @Test func encoderParametersGiveStreamsThePlainDecoderInflates() {
        let json = JSONValue.object(VoltraEncoder.json(Self.layout(3), mode: .fanOut)).serialized()
        #expect(Brotli.compress(json, .compatible) == Brotli.compress(json, quality: 2, window: 22))
        #expect(Brotli.compress(json, .fanOut) == Brotli.compress(json, quality: 5, window: 22))
        let levers: [BrotliSettings] = [
            BrotliSettings(quality: 5, mode: .text), BrotliSettings(quality: 5, literalContextModeling: false),
            BrotliSettings(quality: 5, sizeHint: true), BrotliSettings(quality: 5, postfix: 1, direct: 12),
            BrotliSettings(quality: 9, window: 16, mode: .text, literalContextModeling: false, sizeHint: true, postfix: 2, direct: 8),
        ]
        for settings in levers {
            let stream = Brotli.compress(json, settings)
            #expect(Brotli.decompress(stream, limit: json.count) == json, "\(settings)")
            #expect(stream.count < json.count / 3, "\(settings)")
        }
        let large = Brotli.compress(json, BrotliSettings(quality: 5, window: 24, largeWindow: true))
        #expect(Brotli.decompress(large, limit: json.count) == nil)
    }

    /// The check before encoding renders compact's deduplicated JSON (the costly structural dedup) for
    /// the fan-out mode only when neither the compatible nor the fan-out JSON can fit; the answer is the
    /// same as with every candidate.
    @Test func theCheckBeforeEncodingRendersCompactsJSONOnlyWhenItCouldMatter() throws {
        let layout = Self.layout(1)
        let all = VoltraEncoder.candidates(layout, mode: .fanOut)
        #expect(all.count == 3)
        #expect(all[1].json == JSONValue.object(VoltraEncoder.json(layout, mode: .fanOut)).serialized())
        #expect(all[2].json == JSONValue.object(VoltraEncoder.json(layout, mode: .compact)).serialized())
        #expect(VoltraEncoder.candidates(layout, mode: .fanOut, over: VoltraBudget.maxJSONBytes).map(\.json) == [all[0].json])
        // compact < fan-out < compatible JSON here.
        #expect(all[2].json.count < all[1].json.count && all[1].json.count < all[0].json.count)
        #expect(VoltraEncoder.candidates(layout, mode: .fanOut, over: all[1].json.count).map(\.json) == [all[0].json, all[1].json])
        #expect(VoltraEncoder.candidates(layout, mode: .fanOut, over: all[1].json.count - 1).map(\.json) == all.map(\.json))
        try VoltraBudget.checkBeforeEncoding(layout, mode: .fanOut)
    }

    @Test func encoderParametersAreClampedAndNamed() {
        #expect(BrotliSettings(quality: 5, postfix: 9, direct: 500) == BrotliSettings(quality: 5, postfix: 3, direct: 120))
        #expect(BrotliSettings(quality: 5, postfix: 1, direct: 13).direct == 12)
        #expect(BrotliSettings(quality: 5, postfix: 1).postfix == nil)
        #expect(BrotliSettings(quality: 5, window: 30).window == 24 && BrotliSettings(quality: 5, window: 30, largeWindow: true).window == 30)
        #expect(BrotliSettings(quality: 5, mode: .text, literalContextModeling: false, sizeHint: true, postfix: 1, direct: 12).description
                == "q5 w22 text nolcm hint p1d12")
        #expect(BrotliSettings.fanOut.description == "q5 w22" && !BrotliSettings.fanOut.largeWindow)
    }

    @Test func settingsAreClampedToWhatBrotliAccepts() {
        #expect(BrotliSettings(quality: 14, window: 30) == BrotliSettings(quality: 11, window: 24))
        #expect(BrotliSettings(quality: -1, window: 2) == BrotliSettings(quality: 0, window: 10))
        #expect(BrotliSettings.compatible.description == "q2 w22")
    }
}
