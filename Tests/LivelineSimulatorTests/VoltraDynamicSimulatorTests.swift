import Foundation
import LivelineCore
import LivelineSimulator
import LivelineUI
import Testing

/// The app's bundled layout for `order_finished`: the order number and status on the lock screen;
/// it fails (as a JavaScript entry throws) when there is no status to show.
let orderFinishedLayout: @Sendable (JSONObject) throws -> UILayout = { props in
    guard let status = props["status"]?.stringValue else { throw LayoutFailure(message: "props.status is not a string") }
    let number = props["orderNumber"]?.stringValue ?? "?"
    return try LayoutForm.parse(.object(["lockScreen": ["type": "VStack", "children": [
        ["type": "Text", "children": .string("Order \(number)")], ["type": "Text", "children": .string(status)],
    ]]]))
}

struct LayoutFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

@Suite("Simulator: Voltra Dynamic Live Activities decode and render as on the device")
struct VoltraDynamicSimulatorTests {
    static let type = "VoltraOrderFinishedLiveActivityAttributes"

    func fixture() throws -> (Fixture, String) {
        let f = Fixture()
        try f.sim.registerActivityType(.voltraDynamic(definitionID: "order_finished", layout: orderFinishedLayout), bundleID: Fixture.bundle, on: f.device)
        let token = try #require(f.sim.app(Fixture.bundle, on: f.device)?.pushToStartTokens[Self.type])
        return (f, token)
    }

    @Test("a props-only start shows the bundled layout with its props, beside a server-rendered VoltraAttributes activity")
    func startAndShow() throws {
        let (f, token) = try fixture()
        let start = f.startBody(type: Self.type, attributes: ["name": "order-123", "deepLinkUrl": "myapp://orders/123"],
                                state: ["props": ["orderNumber": "123", "status": "Preparing"]], input: 1)
        #expect(f.send(f.laRequest(token: token, body: start)).status == 200)
        let dynamic = try #require(f.sim.activities().last)
        #expect(dynamic.attributesType == Self.type)
        // The attributes the generated type keeps (key order is the encoder's, so each is compared).
        #expect(dynamic.attributes.objectValue?.keys.sorted() == ["deepLinkUrl", "name"])
        #expect(dynamic.attributes["name"] == "order-123")
        #expect(dynamic.attributes["deepLinkUrl"] == "myapp://orders/123")
        #expect(f.sim.shown(dynamic.id)?.lockScreenText == ["Order 123", "Preparing"])

        // The server-rendered format on the same phone.
        let ui = try VoltraPayload.contentState(layoutJSON: Array(#"{"lockScreen": {"type": "Text", "children": "Boarding at C7"}}"#.utf8))
        let voltraToken = try #require(f.app.pushToStartTokens["VoltraAttributes"])
        let voltraStart = f.startBody(type: "VoltraAttributes", attributes: ["name": "flight"], state: .object(ui), input: 1)
        #expect(f.send(f.laRequest(token: voltraToken, body: voltraStart)).status == 200)
        let server = try #require(f.sim.activities().last)
        #expect(server.attributesType == "VoltraAttributes")
        #expect(f.sim.shown(server.id)?.lockScreenText == ["Boarding at C7"])
        #expect(f.sim.shown(dynamic.id)?.lockScreenText == ["Order 123", "Preparing"])
    }

    @Test("content the generated type cannot decode is dropped and counted as a decode failure; a render failure shows nothing")
    func dropsAndRenderFailures() throws {
        let (f, token) = try fixture()
        let start = f.startBody(type: Self.type, attributes: ["name": "order-9"], state: ["props": ["orderNumber": "9", "status": "Preparing"]], input: 1)
        #expect(f.send(f.laRequest(token: token, body: start)).status == 200)
        let activity = try #require(f.sim.activities().last)
        let updateToken = try #require(activity.pushToken)
        f.clock.advance(by: 1)
        // uiJsonData sent to a dynamic type: no props, the device cannot decode it.
        #expect(f.send(f.laRequest(token: updateToken, body: f.updateBody(state: ["uiJsonData": "abc"]))).status == 200)
        var now = try #require(f.sim.activity(activity.id))
        #expect(now.decodeFailures == 1)
        #expect(now.lastDecodeFailure?.contains("content-state.props is missing") == true)
        #expect(f.sim.shown(activity.id)?.lockScreenText == ["Order 9", "Preparing"])
        // Props that decode but the layout cannot use: applied, and nothing is shown.
        f.clock.advance(by: 1)
        #expect(f.send(f.laRequest(token: updateToken, body: f.updateBody(state: ["props": ["orderNumber": "9", "status": 5]]))).status == 200)
        now = try #require(f.sim.activity(activity.id))
        #expect(now.decodeFailures == 1)
        #expect(now.state == .active)
        let shown = try #require(f.sim.shown(activity.id))
        #expect(shown.layout == nil)
        #expect(shown.renderFailure == "props.status is not a string")
        // A later good update recovers it.
        f.clock.advance(by: 1)
        #expect(f.send(f.laRequest(token: updateToken, body: f.updateBody(state: ["props": ["orderNumber": "9", "status": "Ready"]]))).status == 200)
        #expect(f.sim.shown(activity.id)?.lockScreenText == ["Order 9", "Ready"])
        // A start whose attributes lack the generated type's name is not created.
        let count = f.sim.activities().count
        f.clock.advance(by: 1)
        let nameless = f.startBody(type: Self.type, attributes: ["deepLinkUrl": "myapp://x"], state: ["props": ["status": "x"]], input: 1)
        _ = f.send(f.laRequest(token: token, body: nameless))
        #expect(f.sim.activities().count == count)
    }

    @Test("a props declaration registered as a schema (a setup file's) decodes as the device does: mistyped props are kept, no props object is dropped")
    func schemaRegistration() throws {
        let f = Fixture()
        let schema = try ActivitySchema(json: JSONValue.parse(#"{"voltraDynamic": "order_finished", "props": {"status": "string"}}"#))
        try f.sim.registerActivityType(.schema(schema), bundleID: Fixture.bundle, on: f.device)
        let token = try #require(f.sim.app(Fixture.bundle, on: f.device)?.pushToStartTokens[Self.type])
        let start = f.startBody(type: Self.type, attributes: ["name": "order-1"], state: ["props": ["status": 5, "extra": true]], input: 1)
        #expect(f.send(f.laRequest(token: token, body: start)).status == 200)
        let activity = try #require(f.sim.activities().last)
        #expect(activity.contentState == ["props": ["status": 5, "extra": true]])
        #expect(f.sim.shown(activity.id) == nil)
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: try #require(activity.pushToken), body: f.updateBody(state: ["props": "x"])))
        #expect(f.sim.activity(activity.id)?.decodeFailures == 1)
    }
}
