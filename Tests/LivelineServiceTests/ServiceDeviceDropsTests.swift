import Foundation
import LivelineCore
import LivelineService
import LivelineUI
import Testing

/// What the device would drop is refused with the finding, not answered 202 and queued.
@Suite("Service: a send the device would drop is refused (unknown type, undecodable uiJsonData)")
struct ServiceDeviceDropsTests {
    static let token = String(repeating: "ab", count: 32)

    /// The app's side: an installation made with the app key, and its update-token registration
    /// for `activityID` under a grant the backend signed (docs/security.md).
    static func registerToken(_ f: ServiceFixture, _ i: TrustAttackTests.Installation, secret: String, activityID: String, attributesType: String? = nil) async throws -> Reply {
        var body: JSONObject = ["token": .string(Self.token),
                                "grant": .string(BackendTokens.activityGrant(activityID: activityID, installationID: i.id, bundleID: ServiceFixture.bundle, secret: secret))]
        if let attributesType { body["attributesType"] = .string(attributesType) }
        return try await i.client.call("PUT", "/v1/activities/\(activityID)/tokens/\(i.id)", json: .object(body))
    }

    @Test("a typed update to an activity registered without a type is 422 unknown-attributes-type, and nothing is queued")
    func unknownType() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let secret = try await TrustAttackTests.tokenSecret(f)
        let phone = try await TrustAttackTests.install(f)
        #expect(try await Self.registerToken(f, phone, secret: secret, activityID: "untyped-1").status == 201)
        let r = try await f.admin.call("POST", "/v1/activities/untyped-1/update", json: ["contentState": ["status": "boarding"]])
        #expect(r.status == 422, "\(r.json)")
        #expect(r.json["error"]?["code"]?.stringValue == "unknown-attributes-type", "\(r.json)")
        #expect(r.json["error"]?["message"]?.stringValue?.contains("registered without an attributesType") == true, "\(r.json)")
        let activity = try await f.admin.call("GET", "/v1/activities/untyped-1")
        #expect(activity.json["deliveries"]?.arrayValue?.isEmpty ?? true, "\(activity.json)")
        // Registered with its type, the same activity takes typed updates.
        #expect(try await Self.registerToken(f, phone, secret: secret, activityID: "typed-1", attributesType: "FlightAttributes").status == 201)
        let typed = try await f.admin.call("POST", "/v1/activities/typed-1/update", json: ["contentState": ServiceFixture.state()])
        #expect(typed.status == 202, "\(typed.json)")
    }

    @Test("uiJsonData Voltra's extension cannot decode is 422 invalid-ui with the finding; an encoded layout is sent")
    func undecodableUI() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let secret = try await TrustAttackTests.tokenSecret(f)
        let phone = try await TrustAttackTests.install(f)
        #expect(try await Self.registerToken(f, phone, secret: secret, activityID: "match-1", attributesType: "VoltraAttributes").status == 201)
        for bad in ["not base64!", "aGVsbG8="] {  // the second is base64 of "hello", not brotli
            let r = try await f.admin.call("POST", "/v1/activities/match-1/update", json: ["contentState": ["uiJsonData": .string(bad)]])
            #expect(r.status == 422, "\(bad): \(r.json)")
            #expect(r.json["error"]?["code"]?.stringValue == "invalid-ui", "\(r.json)")
            #expect(r.json["error"]?["findings"]?.arrayValue?.first?["path"]?.stringValue == "aps.content-state.uiJsonData", "\(r.json)")
        }
        let layout = try JSONValue.parse(Array(#"{"lockScreen": {"type": "Text", "children": "Driver arrived"}}"#.utf8))
        let good = try VoltraPayload.contentState(layoutJSON: layout.serialized(), mode: .fanOut)
        let r = try await f.admin.call("POST", "/v1/activities/match-1/update", json: ["contentState": .object(good)])
        #expect(r.status == 202, "\(r.json)")
    }

    @Test("a Voltra start whose name is not the activity id is sent, the name kept as its alias; a name that is another activity's id is refused")
    func voltraName() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        // The simulator's phone-1 runs the app: its installation registers the phone's push-to-start token.
        let phone = try await TrustAttackTests.install(f)
        let token = try #require(f.simulator.app(ServiceFixture.bundle, on: "phone-1")?.pushToStartTokens["VoltraAttributes"])
        #expect(try await phone.client.call("PUT", "/v1/devices/\(phone.id)/push-to-start/VoltraAttributes", json: ["token": .string(token)]).status == 201)
        let layout = try JSONValue.parse(Array(#"{"lockScreen": {"type": "Text", "children": "Hello"}}"#.utf8))
        let state = try VoltraPayload.contentState(layoutJSON: layout.serialized(), mode: .fanOut)
        func start(_ id: String, name: String) async throws -> Reply {
            try await f.admin.call("POST", "/v1/activities/\(id)/start", json: [
                "attributesType": "VoltraAttributes", "attributes": ["name": .string(name), "deepLinkUrl": "app://some-deep-link-url"],
                "contentState": .object(state), "alert": ["title": "Driver arrived", "body": "Ready for pickup"], "audience": ["deviceIDs": [.string(phone.id)]]])
        }
        let named = try await start("ride-7", name: "some-name")
        #expect(named.status == 202, "\(named.json)")
        _ = try await f.settled("ride-7")
        #expect(f.deviceActivity("some-name", on: "phone-1") != nil, "the phone knows the activity by Voltra's name")
        // A name that is another activity's id would make the phone's reports reach that one.
        let shadow = try await start("ride-8", name: "ride-7")
        #expect(shadow.status == 400, "\(shadow.json)")
        #expect(shadow.json["error"]?["field"]?.stringValue == "attributes.name")
        #expect(shadow.json["error"]?["message"]?.stringValue?.contains("the id of another activity") == true, "\(shadow.json)")
    }

    @Test("a root array with nothing to show is an error, not an empty layout")
    func emptyRootArray() throws {
        for empty in ["[]", "[{}]"] {
            #expect(throws: UIError.self, "\(empty)") { _ = try VoltraDecoder.decode(json: Array(empty.utf8)) }
        }
        let shown = try VoltraDecoder.decode(json: Array(#"[{"t":0,"c":"Hi"}]"#.utf8))
        #expect(LayoutForm.json(shown.layout).jsonString.contains("Hi"))
    }
}
