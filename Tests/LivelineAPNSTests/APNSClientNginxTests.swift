import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineTesting
import Testing

/// The client against real nginx over HTTP/2 + TLS on loopback.
@Suite struct APNSClientNginxTests {
    static func update(apnsID: UUID? = nil) throws -> PushRequest {
        let state = FlightAttributes.ContentState(status: .boarding, gate: "B12", boardingTime: Date(timeIntervalSince1970: 1_800_000_000), isBoarding: true)
        return PushRequest.liveActivity(try LiveActivityPush.update(state: state), bundleID: APNSLikeNginx.bundleID, apnsID: apnsID)
    }

    static func configuration(_ server: APNSLikeNginx, provider: APNSTokenProvider? = nil, connections: Int = 1) throws -> APNSConfiguration {
        let auth: APNSConfiguration.Authentication = try provider.map { .token($0) }
            ?? .token(keyFile: server.pki.authKey.path, keyID: server.pki.keyID, teamID: server.pki.teamID)
        var retries = APNSConfiguration.Retries()
        retries.backoff = Backoff(initial: .milliseconds(5), maximum: .milliseconds(20))
        var timeouts = APNSConfiguration.Timeouts()
        timeouts.requestDeadline = .seconds(5)
        return APNSConfiguration(authentication: auth, environment: server.environment, connectionCount: connections, timeouts: timeouts, retries: retries)
    }

    @Test func acceptedPushCarriesTokenTopicAndIDs() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server))
        let id = UUID()
        let result = await client.send(try Self.update(apnsID: id), to: APNSLikeNginx.acceptingToken)
        await client.shutdown()
        #expect(result == .accepted(.init(apnsID: id.uuidString.lowercased(), uniqueID: "2f1a6c3e-0000-4000-8000-000000000001")))
    }

    @Test func certificateAuthenticationPresentsTheClientCertificate() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(
            pki: pki, extra: "ssl_client_certificate \(pki.caCertificate.path); ssl_verify_client optional;")
        defer { server.stop() }
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: .certificate(certFile: pki.clientCertificate.path, keyFile: pki.clientKey.path), environment: server.environment))
        let alert = PushRequest.notification(NotificationPush(alert: Alert(title: .plain("LL 1234"), body: .plain("Gate changed to C3"))), bundleID: pki.clientTopic)
        let result = await client.send(alert, to: APNSLikeNginx.certificateToken)
        await client.shutdown()
        #expect(result.isAccepted, "\(result)")
    }

    @Test func everyReasonInTheTableComesBackTyped() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        var configuration = try Self.configuration(server)
        configuration.retries.maxRetries = 0
        let client = APNSClient(configuration: configuration)
        let request = try Self.update()
        for (index, entry) in APNSReason.table.enumerated() where entry.policy != .renewToken {
            let result = await client.send(request, to: APNSLikeNginx.token(forReasonAt: index))
            guard case .rejected(let rejection) = result else {
                Issue.record("\(entry.reason): expected a rejection, got \(result)")
                continue
            }
            #expect(rejection.status == entry.status, "\(entry.reason)")
            #expect(rejection.reason == entry.reason)
            #expect(rejection.reason.isKnown)
            #expect(rejection.policy == entry.policy)
            #expect((rejection.timestamp != nil) == (entry.status == 410), "\(entry.reason)")
        }
        await client.shutdown()
    }

    @Test func tooManyRequestsIsRetriedWithBackoffThenReported() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        var configuration = try Self.configuration(server)
        configuration.retries.maxRetries = 2
        let client = APNSClient(configuration: configuration)
        let result = await client.send(try Self.update(), to: APNSLikeNginx.tooManyRequestsToken)
        await client.shutdown()
        guard case .rejected(let rejection) = result else { Issue.record("\(result)"); return }
        #expect(rejection.reason == .tooManyRequests)
        #expect(rejection.attempts == 3)
        #expect(await server.requestCount(reaching: 3) == 3)
    }

    @Test func deadEndReasonsAreSentOnce() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server))
        let index = try #require(APNSReason.table.firstIndex { $0.reason == .badDeviceToken })
        let result = await client.send(try Self.update(), to: APNSLikeNginx.token(forReasonAt: index))
        await client.shutdown()
        guard case .rejected(let rejection) = result else { Issue.record("\(result)"); return }
        #expect(rejection.attempts == 1)
        #expect(await server.requestCount(reaching: 1) == 1)
    }

    /// The provider's first token (iat = T0) is refused as expired; 25 minutes later the client may
    /// renew, does so once, and the retry with the new token is accepted.
    @Test(arguments: [(25.0, true), (5.0, false)])
    func expiredProviderTokenIsRenewedOnceWhenAllowed(minutesLater: Double, renews: Bool) async throws {
        let pki = try TestPKI.shared()
        let clock = ManualClock()
        let start = clock.read()
        let claims = Base64URL.encode(Array("{\"iss\":\"\(pki.teamID)\",\"iat\":\(Int64(start.timeIntervalSince1970))}".utf8))
        let server = try APNSLikeNginx.start(pki: pki, expiredClaims: claims)
        defer { server.stop() }
        let provider = APNSTokenProvider(
            key: try P256PrivateKey(contentsOfFile: pki.authKey.path), keyID: pki.keyID, teamID: pki.teamID, clock: { clock.read() })
        let first = try provider.current()
        clock.advance(minutes: minutesLater)
        let client = APNSClient(configuration: try Self.configuration(server, provider: provider))
        let result = await client.send(try Self.update(), to: APNSLikeNginx.expiringToken)
        await client.shutdown()
        if renews {
            guard case .accepted(let accepted) = result else { Issue.record("\(result)"); return }
            #expect(accepted.attempts == 2)
            #expect(try provider.current().generation == first.generation + 1)
        } else {
            guard case .rejected(let rejection) = result else { Issue.record("\(result)"); return }
            #expect(rejection.reason == .expiredProviderToken)
            #expect(rejection.attempts == 1)
            #expect(try provider.current() == first)
        }
    }

    @Test func aSlowServerRunsIntoTheDeadline() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        var configuration = try Self.configuration(server)
        configuration.timeouts.requestDeadline = .milliseconds(500)
        let client = APNSClient(configuration: configuration)
        let result = await client.send(try Self.update(), to: APNSLikeNginx.slowToken)
        await client.shutdown()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .deadlineExceeded)
    }

    @Test func oneStreamAtATimeStillDeliversEverything() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki, maxConcurrentStreams: 1)
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server))
        let request = try Self.update()
        let results = await withTaskGroup(of: APNSResult.self) { group in
            for _ in 0..<40 { group.addTask { await client.send(request, to: APNSLikeNginx.acceptingToken) } }
            return await group.reduce(into: [APNSResult]()) { $0.append($1) }
        }
        await client.shutdown()
        #expect(results.count == 40)
        let refused = results.filter { !$0.isAccepted }
        #expect(refused.isEmpty, "\(refused)")
    }

    /// nginx sends GOAWAY after 40 requests on a connection; pushes above the last stream id are
    /// resent on new connections and every push still gets exactly one verdict.
    @Test func goAwayMidLoadResendsOnANewConnection() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki, extra: "keepalive_requests 40;")
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server, connections: 2))
        let request = try Self.update()
        let pushes = (0..<200).map { _ in (request, APNSLikeNginx.acceptingToken) }
        var count = 0, accepted = 0
        for await outcome in client.sendAll(pushes) {
            count += 1
            if outcome.result.isAccepted { accepted += 1 } else { Issue.record("\(outcome.index): \(outcome.result)") }
        }
        await client.shutdown()
        #expect(count == 200)
        #expect(accepted == 200)
        #expect(await server.requestCount(reaching: 200) == 200)
    }

    @Test func broadcastGoesToTheAppPathWithTheChannelHeader() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server))
        let requestID = UUID()
        let result = await client.broadcast(try Self.update(), channelID: APNSLikeNginx.channelID, bundleID: APNSLikeNginx.bundleID, requestID: requestID)
        #expect(result == .accepted(.init(apnsID: requestID.uuidString.lowercased(), uniqueID: nil)))
        let suffixed = await client.broadcast(try Self.update(), channelID: APNSLikeNginx.channelID, bundleID: APNSLikeNginx.bundleID + ".push-type.liveactivity")
        guard case .failed(let error) = suffixed else { Issue.record("\(suffixed)"); return }
        #expect(error.message.contains(".push-type.liveactivity"))
        await client.shutdown()
    }

    @Test func channelsCanBeCreatedReadListedAndDeleted() async throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let client = APNSClient(configuration: try Self.configuration(server))
        let requestID = UUID()
        let created = await client.createChannel(bundleID: APNSLikeNginx.bundleID, storagePolicy: .mostRecentMessageStored, requestID: requestID)
        #expect(created == .success(APNSLikeNginx.channelID, requestID: requestID.uuidString.lowercased()))
        let read = await client.readChannel(APNSLikeNginx.channelID, bundleID: APNSLikeNginx.bundleID)
        #expect(read.value == APNSChannelConfiguration(storagePolicy: .mostRecentMessageStored, pushType: "LiveActivity"))
        let list = await client.listChannels(bundleID: APNSLikeNginx.bundleID)
        #expect(list.value == [APNSLikeNginx.channelID, "YW5vdGhlcg=="])
        let deleted = await client.deleteChannel(APNSLikeNginx.channelID, bundleID: APNSLikeNginx.bundleID)
        #expect(deleted.value == APNSNoContent())
        let bad = await client.readChannel("not base64!", bundleID: APNSLikeNginx.bundleID)
        guard case .failed(let error) = bad else { Issue.record("\(bad)"); return }
        #expect(error.message.contains("not base64!"))
        await client.shutdown()
    }
}
