import Foundation
import LivelineAPNS
import LivelineCore
import Testing

/// docs/traps.md, "apns-expiration on a no-storage channel": APNs answers 400 `BadExpirationDate`
/// to a non-zero expiration on a No-Message-Stored channel. The client refuses it before sending.
@Suite("APNSClient.broadcast: a non-zero expiration to a channel that stores no messages")
struct BroadcastExpirationTests {
    static func client(_ served: ServedSimulator) throws -> APNSClient {
        APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: served.keyFile, keyID: served.keyID, teamID: served.teamID),
            environment: .custom(host: "127.0.0.1", port: served.server.port, caFile: served.server.caFile)))
    }

    static func update(expiration: Expiration?, bundleID: String) throws -> PushRequest {
        let state = FlightAttributes.ContentState(status: .boarding, gate: "B7", boardingTime: Date().addingTimeInterval(600))
        return PushRequest.liveActivity(try .update(state: state), bundleID: bundleID, expiration: expiration)
    }

    func broadcastsLogged(_ served: ServedSimulator) -> Int { served.simulator.log().filter { $0.kind == "broadcast" }.count }

    @Test("refused before sending, whether the client made the channel or reads its policy once; 0 and stored channels go out")
    func refusedBeforeSending() async throws {
        let served = try await ServedSimulator.start()
        let bundle = served.app.bundleID
        let later = Expiration.at(Date().addingTimeInterval(3600))

        // A channel this client created: it knows the policy without asking.
        let creator = try Self.client(served)
        let unstored = try #require(await creator.createChannel(bundleID: bundle, storagePolicy: .noMessageStored).value)
        let refused = await creator.broadcast(try Self.update(expiration: later, bundleID: bundle), channelID: unstored, bundleID: bundle)
        guard case .failed(let error) = refused else { Issue.record("expected a refusal, got \(refused)"); return }
        #expect(error.code == .expirationOnUnstoredChannel)
        #expect(error.message.contains("BadExpirationDate") && error.message.contains("expiration 0"))
        #expect(broadcastsLogged(served) == 0, "the refused broadcast reached the simulator")

        // A fresh client (another process, a restart) reads the channel's policy, then refuses.
        let fresh = try Self.client(served)
        let again = await fresh.broadcast(try Self.update(expiration: later, bundleID: bundle), channelID: unstored, bundleID: bundle)
        guard case .failed(let second) = again else { Issue.record("expected a refusal, got \(again)"); return }
        #expect(second.code == .expirationOnUnstoredChannel)
        #expect(broadcastsLogged(served) == 0)
        #expect(served.simulator.log().contains { $0.kind == "channels" && $0.method == "GET" }, "the fresh client did not read the channel")

        // What APNs accepts still goes out: expiration 0 on that channel, any expiration on a stored one.
        #expect(await fresh.broadcast(try Self.update(expiration: .immediately, bundleID: bundle), channelID: unstored, bundleID: bundle).isAccepted)
        let stored = try #require(await creator.createChannel(bundleID: bundle, storagePolicy: .mostRecentMessageStored).value)
        #expect(await creator.broadcast(try Self.update(expiration: later, bundleID: bundle), channelID: stored, bundleID: bundle).isAccepted)
        #expect(broadcastsLogged(served) == 2)
        await creator.shutdown()
        await fresh.shutdown()
        await served.stop()
    }
}
