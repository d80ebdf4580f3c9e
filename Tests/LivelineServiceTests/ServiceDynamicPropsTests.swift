import Foundation
import LivelineCore
import LivelineSimulator
import LivelineUI
import Testing

@Suite("Service: Voltra Dynamic Live Activities (props-only content against a declared props schema)")
struct ServiceDynamicPropsTests {
    static let type = "VoltraOrderFinishedLiveActivityAttributes"

    /// A service with `order_finished`'s props declared in a schema file, and phone-1 whose app
    /// bundles that definition (its layout shows the order number and status).
    func fixture() async throws -> ServiceFixture {
        let file = NSTemporaryDirectory() + "liveline-props-\(UUID().uuidString.prefix(8)).json"
        try Data(#"{"voltraDynamic": "order_finished", "props": {"orderNumber": "string", "status": "string", "etaMinutes": "int?"}}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let f = try await ServiceFixture { $0.schemaFiles = [file] }
        try f.simulator.registerActivityType(
            .voltraDynamic(definitionID: "order_finished", layout: { props in
                try LayoutForm.parse(.object(["lockScreen": ["type": "VStack", "children": [
                    ["type": "Text", "children": .string("Order \(props["orderNumber"]?.stringValue ?? "?")")],
                    ["type": "Text", "children": .string(props["status"]?.stringValue ?? "?")],
                ]]]))
            }), bundleID: ServiceFixture.bundle, on: "phone-1")
        try await f.register("phone-1")
        let token = try #require(f.simulator.app(ServiceFixture.bundle, on: "phone-1")?.pushToStartTokens[Self.type])
        let t = try await f.admin.call("PUT", "/v1/devices/phone-1/push-to-start/\(Self.type)", json: ["token": .string(token)])
        #expect(t.status == 201, "\(t.json)")
        return f
    }

    static func props(_ status: String, _ extra: JSONObject = [:]) -> JSONValue {
        var p: JSONObject = ["orderNumber": "123", "status": .string(status)]
        for m in extra { p[m.key] = m.value }
        return ["props": .object(p)]
    }

    @Test("start, update and end a props-only activity: the phone shows its bundled layout with each props record")
    func lifecycle() async throws {
        let f = try await fixture()
        defer { Task { await f.stop() } }
        let start = try await f.admin.call("POST", "/v1/activities/order-123/start", json: [
            "attributesType": .string(Self.type), "attributes": ["name": "order-123", "deepLinkUrl": "myapp://orders/123"],
            "contentState": Self.props("Preparing"), "alert": ["title": "Order 123"], "audience": ["deviceIDs": ["phone-1"]], "channel": "none",
        ])
        #expect(start.status == 202, "\(start.json)")
        _ = try await f.settled("order-123")
        let activity = try #require(f.deviceActivity("order-123", on: "phone-1"))
        #expect(activity.attributesType == Self.type)
        #expect(activity.contentState == Self.props("Preparing"))
        #expect(f.simulator.shown(activity.id)?.lockScreenText == ["Order 123", "Preparing"])
        let token = try #require(activity.pushToken)
        #expect(try await f.admin.call("PUT", "/v1/activities/order-123/tokens/phone-1", json: ["token": .string(token)]).status == 201)

        let update = try await f.admin.call("POST", "/v1/activities/order-123/update", json: ["contentState": Self.props("Ready", ["etaMinutes": 4])])
        #expect(update.status == 202, "\(update.json)")
        _ = try await f.settled("order-123")
        #expect(f.simulator.shown(activity.id)?.lockScreenText == ["Order 123", "Ready"])
        #expect(f.simulator.activity(activity.id)?.decodeFailures == 0)

        let end = try await f.admin.call("POST", "/v1/activities/order-123/end", json: ["contentState": Self.props("Picked up"), "dismissalDate": "2020-01-01T00:00:00Z"])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("order-123")
        let ended = try #require(f.simulator.activity(activity.id))
        #expect(ended.state == .ended || ended.state == .dismissed)
        #expect(ended.contentState == Self.props("Picked up"))
    }

    @Test("undeclared, mistyped and missing props are refused with 422 invalid-props and findings; nothing reaches the phone")
    func refused() async throws {
        let f = try await fixture()
        defer { Task { await f.stop() } }
        func start(_ state: JSONValue) async throws -> Reply {
            try await f.admin.call("POST", "/v1/activities/order-7/start", json: [
                "attributesType": .string(Self.type), "attributes": ["name": "order-7"], "contentState": state,
                "alert": ["title": "Order 7"], "audience": ["deviceIDs": ["phone-1"]], "channel": "none",
            ])
        }
        let mistyped = try await start(["props": ["orderNumber": 7, "status": "Preparing"]])
        #expect(mistyped.status == 422)
        #expect(mistyped.errorCode == "invalid-props")
        #expect(mistyped.json["error"]?["field"] == "contentState.props.orderNumber")
        #expect(mistyped.errorMessage.contains("\"orderNumber\" must be a string"))
        #expect(mistyped.json["error"]?["findings"]?.arrayValue?.contains { $0["code"] == "wrong-prop-type" && $0["path"] == "aps.content-state.props.orderNumber" } == true)

        let undeclared = try await start(Self.props("Preparing", ["tip": 2]))
        #expect(undeclared.status == 422)
        #expect(undeclared.errorCode == "invalid-props")
        #expect(undeclared.json["error"]?["findings"]?.arrayValue?.contains { $0["code"] == "undeclared-prop" && $0["path"] == "aps.content-state.props.tip" } == true)

        let missing = try await start(["props": ["orderNumber": "7"]])
        #expect(missing.errorCode == "invalid-props")
        #expect(missing.json["error"]?["findings"]?.arrayValue?.contains { $0["code"] == "missing-prop" } == true)

        let noProps = try await start(["uiJsonData": "abc"])
        #expect(noProps.errorCode == "invalid-props")
        #expect(noProps.json["error"]?["findings"]?.arrayValue?.contains { $0["code"] == "props-undecodable" } == true)

        #expect(f.deviceActivity("order-7", on: "phone-1") == nil)
        // The same props, right: accepted.
        #expect(try await start(Self.props("Preparing")).status == 202)
    }

    @Test("older builds' props, registered as schema versions: a prop an old build lacks passes (its layout ignores it); one it needs and does not get is refused naming the device")
    func olderBuilds() async throws {
        let f = try await fixture()
        defer { Task { await f.stop() } }
        func runs(_ version: String) async throws {
            let d = try await f.admin.call("PUT", "/v1/devices/phone-1", json: [
                "bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2", "schemaVersions": [.init(stringLiteral: Self.type): .string(version)],
            ])
            #expect(d.status == 200 || d.status == 201, "\(d.json)")
        }
        let path = "/v1/schemas/\(Self.type)/versions/"
        #expect(try await f.admin.call("PUT", path + "1", json: ["contentState": ["props": ["orderNumber": "string", "status": "string"]]]).status == 201)
        #expect(try await f.admin.call("PUT", path + "0", json: ["contentState": ["props": ["orderNumber": "string", "state": "string"]]]).status == 201)
        try await runs("1")
        let eta = try await f.admin.call("POST", "/v1/activities/order-5/start", json: [
            "attributesType": .string(Self.type), "attributes": ["name": "order-5"], "contentState": Self.props("Preparing", ["etaMinutes": 3]),
            "alert": ["title": "Order 5"], "audience": ["deviceIDs": ["phone-1"]], "channel": "none",
        ])
        #expect(eta.status == 202, "\(eta.json)")
        try await runs("0")
        let old = try await f.admin.call("POST", "/v1/activities/order-6/start", json: [
            "attributesType": .string(Self.type), "attributes": ["name": "order-6"], "contentState": Self.props("Preparing"),
            "alert": ["title": "Order 6"], "audience": ["deviceIDs": ["phone-1"]], "channel": "none",
        ])
        #expect(old.status == 422, "\(old.json)")
        #expect(old.errorCode == "older-build-cannot-decode")
        #expect(old.errorMessage.contains("phone-1"))
    }

    @Test("a definition whose props are not declared is refused: the service cannot check what the phone would render")
    func undeclaredDefinition() async throws {
        let f = try await fixture()
        defer { Task { await f.stop() } }
        let r = try await f.admin.call("POST", "/v1/activities/x-1/start", json: [
            "attributesType": "VoltraDriverArrivedLiveActivityAttributes", "attributes": ["name": "x-1"], "contentState": ["props": ["a": 1]],
            "alert": ["title": "x"], "audience": ["deviceIDs": ["phone-1"]], "channel": "none",
        ])
        #expect(r.status == 422)
        #expect(r.errorCode == "unknown-attributes-type")
    }
}
