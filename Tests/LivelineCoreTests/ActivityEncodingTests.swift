import Foundation
import Testing
@testable import LivelineCore

/// A type that exercises every encoding rule ActivityKit's default decoder applies.
struct TripAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable, Sendable {
        var eta: Date
        var window: ClosedRange<Date>
        var photo: Data
        var note: String?
        var seatNumber: String

        enum CodingKeys: String, CodingKey {
            case eta, window, photo, note
            case seatNumber = "seat"
        }
    }
    var name: String
}

@Suite("Encoding as ActivityKit decodes")
struct ActivityEncodingTests {
    let unix1700000000 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("a Date encodes as seconds since 2001-01-01: Unix 1700000000 is 721692800")
    func referenceDateSeconds() throws {
        let state = FlightAttributes.ContentState(status: .delayed, gate: nil, boardingTime: unix1700000000, delayMinutes: 15)
        let json = try JSONValue(encoding: state)
        #expect(json["boardingTime"] == .number(721_692_800))
        #expect(json["gate"] == nil, "an optional left nil is omitted")
        #expect(json["status"] == "delayed")
    }

    @Test("Data is base64, CodingKeys rename, ClosedRange<Date> is a two-element array, and it round-trips through a default JSONDecoder")
    func roundTrip() throws {
        let state = TripAttributes.ContentState(
            eta: unix1700000000, window: unix1700000000...unix1700000000.addingTimeInterval(600),
            photo: Data([0xDE, 0xAD, 0xBE, 0xEF]), note: "Window seat", seatNumber: "12A")
        let push = try LiveActivityPush.update(state: state, timestamp: unix1700000000)
        let body = push.body
        let cs = try #require(body["aps"]?["content-state"])
        #expect(cs["photo"] == "3q2+7w==")
        #expect(cs["seat"] == "12A")
        #expect(cs["seatNumber"] == nil)
        #expect(cs["window"] == [721_692_800, 721_693_400])
        // What the device does: a default JSONDecoder on the content-state bytes.
        let decoded = try JSONDecoder().decode(TripAttributes.ContentState.self, from: Data(cs.serialized()))
        #expect(decoded == state)
        let flight = FlightAttributes.example(departure: unix1700000000)
        let start = try LiveActivityPush.start(attributes: flight, state: .init(status: .scheduled, gate: "B12", boardingTime: unix1700000000), alert: "x")
        let attributes = try #require(start.body["aps"]?["attributes"])
        #expect(try JSONDecoder().decode(FlightAttributes.self, from: Data(attributes.serialized())) == flight)
    }

    @Test("attributes-type is the Swift type's name")
    func attributesType() throws {
        #expect(FlightAttributes.attributesType == "FlightAttributes")
        #expect(TripAttributes.attributesType == "TripAttributes")
        let push = try LiveActivityPush.start(attributes: TripAttributes(name: "Alps"), state: .init(
            eta: unix1700000000, window: unix1700000000...unix1700000000, photo: Data(), note: nil, seatNumber: "1"), alert: "Trip")
        #expect(push.body["aps"]?["attributes-type"] == "TripAttributes")
    }

    @Test("timestamp, stale-date and dismissal-date are Unix seconds in aps")
    func apsDatesAreUnix() throws {
        let push = try LiveActivityPush.end(
            state: FlightAttributes.ContentState(status: .landed, gate: "C7", boardingTime: unix1700000000),
            timestamp: unix1700000000, dismissal: .at(unix1700000000.addingTimeInterval(3600)),
            staleDate: unix1700000000.addingTimeInterval(60))
        let aps = try #require(push.body["aps"])
        #expect(aps["timestamp"] == 1_700_000_000)
        #expect(aps["stale-date"] == 1_700_000_060)
        #expect(aps["dismissal-date"] == 1_700_003_600)
        #expect(aps["event"] == "end")
    }

    @Test("dismissal: immediate is a past date, default omits the key, a date is kept")
    func dismissal() throws {
        let state = ["x": 1]
        let immediate = try LiveActivityPush.end(state: state, timestamp: unix1700000000, dismissal: .immediate).body["aps"]
        #expect(immediate?["dismissal-date"]?.numberValue.map { $0 < 1_700_000_000 } == true)
        #expect(try LiveActivityPush.end(state: state, timestamp: unix1700000000).body["aps"]?["dismissal-date"] == nil)
        #expect(try LiveActivityPush(body: LiveActivityPush.end(state: state, timestamp: unix1700000000, dismissal: .immediate).body).dismissal == .immediate)
    }

    @Test("start carries input-push-token or input-push-channel, localized alert objects and sound inside alert")
    func startFields() throws {
        let flight = FlightAttributes.example(departure: unix1700000000)
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: unix1700000000)
        let alert = Alert(title: .localized(key: "FLIGHT_%@", arguments: ["LL 1234"]), body: "Gate B12", sound: "chime.aiff")
        let withToken = try LiveActivityPush.start(attributes: flight, state: state, alert: alert, timestamp: unix1700000000, relevanceScore: 50, input: .pushToken)
        let aps = try #require(withToken.body["aps"])
        #expect(aps["input-push-token"] == 1)
        #expect(aps["relevance-score"] == 50)
        #expect(aps["alert"] == ["title": ["loc-key": "FLIGHT_%@", "loc-args": ["LL 1234"]], "body": "Gate B12", "sound": "chime.aiff"])
        let withChannel = try LiveActivityPush.start(attributes: flight, state: state, alert: alert, input: .channel("dHN0LXNyY2gtY2hubA=="))
        #expect(withChannel.body["aps"]?["input-push-channel"] == "dHN0LXNyY2gtY2hubA==")
        #expect(withChannel.body["aps"]?["input-push-token"] == nil)
    }

    @Test("custom keys go beside aps, and a body parses back to the same push")
    func customKeysAndParsing() throws {
        var push = try LiveActivityPush.update(state: ["gate": "C7"], timestamp: unix1700000000, alert: "Gate change", staleDate: unix1700000000.addingTimeInterval(900), relevanceScore: 75)
        push.customKeys = ["deepLink": "/flights/LL1234", "aps": "ignored"]
        let body = push.body
        #expect(body.objectValue?.keys == ["aps", "deepLink"])
        let parsed = try LiveActivityPush(body: body)
        #expect(parsed.body == body)
        #expect(parsed.event == .update)
        #expect(parsed.alert?.body == .plain("Gate change"))
    }

    @Test("request headers: push type, topic with suffix, priority, expiration, collapse id, lowercase apns-id")
    func headers() throws {
        let id = UUID(uuidString: "123E4567-E89B-12D3-A456-426614174000")!
        let request = PushRequest.liveActivity(
            try .update(state: ["gate": "C7"]), bundleID: "com.example.flights", priority: .considerate,
            expiration: .at(unix1700000000), collapseID: "gate", apnsID: id)
        let headers = Dictionary(uniqueKeysWithValues: request.headers.map { ($0.name, $0.value) })
        #expect(headers == [
            "apns-push-type": "liveactivity", "apns-topic": "com.example.flights.push-type.liveactivity", "apns-priority": "5",
            "apns-expiration": "1700000000", "apns-collapse-id": "gate", "apns-id": "123e4567-e89b-12d3-a456-426614174000",
        ])
        #expect(Expiration.immediately.headerValue == "0")
    }

    @Test("plain alert and background notifications")
    func notifications() throws {
        let alert = PushRequest.notification(NotificationPush(
            alert: Alert(title: .localized(key: "T", arguments: ["a"]), body: "Hello"), badge: 3, sound: "default",
            threadID: "flights", interruptionLevel: .timeSensitive, customKeys: ["id": 7]), bundleID: "com.example.flights")
        #expect(alert.pushType == .alert)
        #expect(alert.topic == "com.example.flights")
        #expect(alert.priority == .immediate)
        #expect(alert.body == ["aps": ["alert": ["title-loc-key": "T", "title-loc-args": ["a"], "body": "Hello"], "badge": 3, "sound": "default", "thread-id": "flights", "interruption-level": "time-sensitive"], "id": 7])
        try alert.validate()
        let background = PushRequest.notification(.background(["sync": true]), bundleID: "com.example.flights")
        #expect(background.pushType == .background)
        #expect(background.priority == .considerate)
        #expect(background.body == ["aps": ["content-available": 1], "sync": true])
        try background.validate()
    }
}
