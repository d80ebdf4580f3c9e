import Foundation
import LivelineCore
import LivelineCrypto
@testable import LivelineSimulator
import Testing

/// `SimulatorMemo` keeps the rules' results for repeated inputs; it must never answer for an
/// input other than the one it kept, nor for keys that changed since.
@Suite("SimulatorMemo: what it keeps and when it forgets")
struct SimulatorMemoTests {
    static func checked(_ f: Fixture, valid: Bool = true) throws -> SimulatorMemo.CheckedToken {
        SimulatorMemo.CheckedToken(token: try JWT(parsing: f.jwt()), valid: valid)
    }

    @Test("the authorization memo answers only for the very header it was made for, and keysChanged forgets it with every checked token")
    func authorizationInvalidation() throws {
        let f = Fixture()
        var memo = SimulatorMemo(checkedTokenCapacity: 10)
        let checked = try Self.checked(f)
        let header = "bearer " + f.jwt()
        memo.remember(checked, for: f.jwt())
        memo.remember(SimulatorMemo.Authorization(header: header, token: f.jwt(), checked: checked, key: nil))
        #expect(memo.authorization(for: header)?.token == f.jwt())
        #expect(memo.authorization(for: header + " ") == nil)
        #expect(memo.authorization(for: "bearer " + f.jwt(kid: "OTHERKEY01", key: TestKeys.other)) == nil)
        #expect(memo.checkedToken(f.jwt())?.valid == true)
        memo.keysChanged()
        #expect(memo.authorization(for: header) == nil)
        #expect(memo.checkedToken(f.jwt()) == nil)
        #expect(memo.checkedTokens.count == 0)
    }

    @Test("the topic split, push-type facts and device path are recomputed for a new input and kept for a repeated one")
    func pureMemos() {
        var memo = SimulatorMemo(checkedTokenCapacity: 1)
        var splits = 0
        let split: (String) -> (bundleID: String, suffix: String) = { topic in
            splits += 1
            return SimulatorState.splitTopic(topic)
        }
        #expect(memo.splitTopic("com.a.push-type.liveactivity", by: split) == ("com.a", ".push-type.liveactivity"))
        #expect(memo.splitTopic("com.a.push-type.liveactivity", by: split) == ("com.a", ".push-type.liveactivity"))
        #expect(splits == 1)
        #expect(memo.splitTopic("com.b", by: split) == ("com.b", ""))
        #expect(splits == 2)

        #expect(memo.facts(for: .alert).type == .alert)
        let liveActivity = memo.facts(for: .liveActivity)
        #expect(liveActivity.type == .liveActivity && liveActivity.known)
        #expect(memo.facts(for: .liveActivity) === liveActivity)
        #expect(!memo.facts(for: PushType(rawValue: "nonsense")).known)

        let first = "/3/device/" + String(repeating: "ab", count: 32)
        let second = "/3/device/" + String(repeating: "cd", count: 32)
        let parsed = memo.devicePath(first, by: SimulatorState.devicePath(of:))
        #expect(parsed.token == String(repeating: "ab", count: 32))
        #expect(memo.devicePath(first, by: SimulatorState.devicePath(of:)) === parsed)
        #expect(memo.devicePath(second, by: SimulatorState.devicePath(of:)).token == String(repeating: "cd", count: 32))
    }

    @Test("the delivery list and the deliverable body are kept only for the same bytes")
    func deliveryMemos() {
        var memo = SimulatorMemo(checkedTokenCapacity: 1)
        let a = memo.deviceDeliveries(deviceID: "D1", detail: "alert notification delivered")
        #expect(memo.deviceDeliveries(deviceID: "D1", detail: "alert notification delivered") == a)
        #expect(memo.deviceDeliveries(deviceID: "D2", detail: "alert notification delivered").first?.deviceID == "D2")
        let body = Array(#"{"aps":{}}"#.utf8)
        #expect(!memo.isDeliverable(body))
        memo.rememberDeliverable(body)
        #expect(memo.isDeliverable(body))
        #expect(!memo.isDeliverable(Array(#"{"aps":[]}"#.utf8)))
    }

    @Test("a key added later: the token refused for want of it, sent again with the same header, is accepted")
    func keyAddedAfterRefusal() throws {
        let f = Fixture()
        let late = try P256PrivateKey.generate()
        let request = f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(kid: "LATEKEY001", key: late)) }
        #expect(f.send(request).reason == "InvalidProviderToken")
        f.sim.add(ProviderKey(keyID: "LATEKEY001", teamID: Fixture.team, publicKey: late.publicKey))
        #expect(f.send(request).status == 200)
    }

    @Test("a provider token changed to one signed by the wrong key is refused, not answered from the memo of the good one")
    func changedTokenIsCheckedAgain() {
        let f = Fixture()
        #expect(f.send(f.alertRequest()).status == 200)
        let forged = f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(key: TestKeys.other)) }
        #expect(f.send(forged).reason == "InvalidProviderToken")
        #expect(f.send(f.alertRequest()).status == 200)
    }

    @Test("the same path after its app was uninstalled answers Unregistered; a malformed body after a good one is dropped")
    func stateChangesAreSeen() throws {
        let f = Fixture()
        #expect(f.send(f.alertRequest()).status == 200)
        #expect(f.send(f.alertRequest { $0.body = Array(#"{"aps":[]}"#.utf8) }).status == 200)
        let drops = f.sim.log().suffix(2).map { $0.deliveries.first?.dropReason }
        #expect(drops == [nil, .malformedPayload])
        try f.sim.uninstall(Fixture.bundle, from: f.device)
        #expect(f.send(f.alertRequest()).reason == "Unregistered")
    }
}
