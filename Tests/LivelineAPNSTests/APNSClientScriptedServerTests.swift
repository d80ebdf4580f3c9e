import Foundation
import LivelineAPNS
import LivelineCore
import LivelineHTTP2
import LivelineTesting
import Synchronization
import Testing

/// The client against LivelineHTTP2's `HTTP2Server` scripted to misbehave the way APNs may:
/// REFUSED_STREAM, GOAWAY mid-load, one stream then more, dropped connections.
@Suite struct APNSClientScriptedServerTests {
    static let token = String(repeating: "5a", count: 80)

    static func start(
        maxConcurrentStreams: Int = 100, onConnection: (@Sendable (HTTP2ServerConnection) -> Void)? = nil,
        handler: @escaping HTTP2Server.Handler
    ) throws -> (HTTP2Server, TestPKI) {
        let pki = try TestPKI.shared()
        let configuration = HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path), maxConcurrentStreams: maxConcurrentStreams)
        return (try HTTP2Server.start(configuration: configuration, onConnection: onConnection, handler: handler), pki)
    }

    static func client(_ server: HTTP2Server, _ pki: TestPKI, connections: Int = 1) throws -> APNSClient {
        var retries = APNSConfiguration.Retries()
        retries.backoff = Backoff(initial: .milliseconds(5), maximum: .milliseconds(20))
        retries.reconnect = Backoff(initial: .milliseconds(5), maximum: .milliseconds(50))
        var timeouts = APNSConfiguration.Timeouts()
        timeouts.requestDeadline = .seconds(10)
        return APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: pki.authKey.path, keyID: pki.keyID, teamID: pki.teamID),
            environment: .custom(host: "127.0.0.1", port: server.port, caFile: pki.caCertificate.path),
            connectionCount: connections, timeouts: timeouts, retries: retries))
    }

    static func update() throws -> PushRequest {
        let state = FlightAttributes.ContentState(status: .delayed, gate: "C3", boardingTime: Date(timeIntervalSince1970: 1_800_000_000), delayMinutes: 25)
        return PushRequest.liveActivity(try LiveActivityPush.update(state: state), bundleID: "com.example.flights")
    }

    static func accepted(_ responder: HTTP2ServerResponder) {
        responder.respond(status: 200, headers: ["apns-id": UUID().uuidString.lowercased()])
    }

    @Test func refusedStreamsAreResent() async throws {
        let seen = Mutex(0)
        let (server, pki) = try Self.start { request, responder in
            let n = seen.withLock { n -> Int in n += 1; return n }
            // Every other request is refused, as APNs does when it lowers the stream limit.
            if n % 2 == 1 { responder.refuse() } else { Self.accepted(responder) }
        }
        let client = try Self.client(server, pki)
        var results: [APNSResult] = []
        for _ in 0..<5 { results.append(await client.send(try Self.update(), to: Self.token)) }
        await client.shutdown()
        await server.stop()
        let allAccepted = results.allSatisfy { $0.isAccepted }
        #expect(allAccepted, "\(results)")
        #expect(results.map { if case .accepted(let a) = $0 { a.attempts } else { 0 } } == [2, 2, 2, 2, 2])
        #expect(seen.withLock { $0 } == 10)
    }

    /// After 10 requests on a connection the server answers them, then sends GOAWAY (with APNs'
    /// JSON debug data) naming the 10th as the last; everything above is resent on a new connection.
    @Test func goAwayMidLoadLosesNothing() async throws {
        // Per connection: requests answered, the highest stream answered, and the GOAWAY's last
        // stream once sent. Requests can complete out of stream order (their DATA frames
        // interleave), so the GOAWAY names the highest stream answered, and streams at or below
        // it that complete later are still answered: that is what "last stream processed" means
        // to the client. Nothing above it is.
        struct Connection { var answered = 0; var highest: Int32 = 0; var last: Int32? }
        let connections = Mutex<[UInt64: Connection]>([:])
        let answered = Mutex(0)
        let (server, pki) = try Self.start { request, responder in
            let (answer, goAwayAt) = connections.withLock { c -> (Bool, Int32?) in
                var entry = c[request.connection.id, default: Connection()]
                defer { c[request.connection.id] = entry }
                if let last = entry.last { return (request.streamID <= last, nil) }
                entry.answered += 1
                entry.highest = max(entry.highest, request.streamID)
                if entry.answered == 10 { entry.last = entry.highest }
                return (true, entry.last)
            }
            guard answer else { return }  // above the last stream id: never processed
            answered.withLock { $0 += 1 }
            Self.accepted(responder)
            if let goAwayAt {
                request.connection.goAway(lastStreamID: goAwayAt, debugData: Array("{\"reason\":\"Shutdown\"}".utf8))
            }
        }
        let client = try Self.client(server, pki, connections: 2)
        let request = try Self.update()
        var verdicts = 0, accepted = 0
        for await outcome in client.sendAll(Array(repeating: (request, Self.token), count: 100)) {
            verdicts += 1
            if outcome.result.isAccepted { accepted += 1 } else { Issue.record("\(outcome.result)") }
        }
        await client.shutdown()
        #expect(verdicts == 100)
        #expect(accepted == 100)
        #expect(answered.withLock { $0 } == 100)
        #expect(server.acceptedConnections >= 10)
        await server.stop()
    }

    /// The server starts each connection at one stream and raises it to 50 after the first push,
    /// as APNs does for token connections; the client honours both.
    @Test func oneStreamThenRaised() async throws {
        let active = Shared((now: 0, maxBeforeRaise: 0, maxAfterRaise: 0, raised: false))
        let (server, pki) = try Self.start(onConnection: { $0.setMaxConcurrentStreams(1) }) { request, responder in
            let raiseNow = active.withLock { a -> Bool in
                a.now += 1
                if a.raised { a.maxAfterRaise = max(a.maxAfterRaise, a.now) } else { a.maxBeforeRaise = max(a.maxBeforeRaise, a.now) }
                defer { a.raised = true }
                return !a.raised
            }
            if raiseNow { request.connection.setMaxConcurrentStreams(50) }
            // Answer a little later so requests overlap once the limit allows it (the behaviour
            // staged, not a wait for anything).
            Task {
                try? await Task.sleep(for: .milliseconds(20))
                active.withLock { $0.now -= 1 }
                Self.accepted(responder)
            }
        }
        let client = try Self.client(server, pki)
        let request = try Self.update()
        var accepted = 0
        for await outcome in client.sendAll(Array(repeating: (request, Self.token), count: 60)) where outcome.result.isAccepted { accepted += 1 }
        await client.shutdown()
        await server.stop()
        let seen = active.withLock { $0 }
        #expect(accepted == 60)
        #expect(seen.maxBeforeRaise == 1)
        #expect(seen.maxAfterRaise > 1 && seen.maxAfterRaise <= 50)
    }

    @Test func aConnectionDroppedMidStreamIsReplacedAndThePushRetried() async throws {
        let dropped = Mutex(false)
        let (server, pki) = try Self.start { request, responder in
            let drop = dropped.withLock { d -> Bool in defer { d = true }; return !d }
            if drop { request.connection.drop() } else { Self.accepted(responder) }
        }
        let client = try Self.client(server, pki)
        let result = await client.send(try Self.update(), to: Self.token)
        await client.shutdown()
        #expect(server.acceptedConnections == 2)
        await server.stop()
        guard case .accepted(let accepted) = result else { Issue.record("\(result)"); return }
        #expect(accepted.attempts == 2)
    }

    @Test func aServerThatNeverAnswersHitsTheDeadline() async throws {
        let (server, pki) = try Self.start { _, responder in
            responder.respond(status: 200, after: .seconds(30))
        }
        var timeouts = APNSConfiguration.Timeouts()
        timeouts.requestDeadline = .milliseconds(300)
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: pki.authKey.path, keyID: pki.keyID, teamID: pki.teamID),
            environment: .custom(host: "127.0.0.1", port: server.port, caFile: pki.caCertificate.path), timeouts: timeouts))
        let result = await client.send(try Self.update(), to: Self.token)
        await client.shutdown()
        await server.stop()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .deadlineExceeded)
    }

    @Test func anUntrustedServerIsNeverTrusted() async throws {
        let (server, pki) = try Self.start { _, responder in Self.accepted(responder) }
        let other = try await TestPKI.make()
        defer { other.remove() }
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: pki.authKey.path, keyID: pki.keyID, teamID: pki.teamID),
            environment: .custom(host: "127.0.0.1", port: server.port, caFile: other.caCertificate.path)))
        let result = await client.send(try Self.update(), to: Self.token)
        await client.shutdown()
        await server.stop()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .connectFailed)
        #expect(error.message.lowercased().contains("certificate"), "\(error.message)")
    }
}

/// State shared between a test and its server's handler and tasks.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}

@Suite struct RedactionTests {
    /// A push that ends in a transport failure names its device token by an 8-character prefix only.
    @Test func transportFailuresNameOnlyATokenPrefix() async throws {
        // Every connection is sent away before its first stream, so the transport's error names the path.
        let (server, pki) = try APNSClientScriptedServerTests.start { request, _ in request.connection.goAway(lastStreamID: 0) }
        var retries = APNSConfiguration.Retries()
        retries.maxResends = 1
        retries.reconnect = Backoff(initial: .milliseconds(1), maximum: .milliseconds(5))
        retries.backoff = Backoff(initial: .milliseconds(1), maximum: .milliseconds(1))
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: pki.authKey.path, keyID: pki.keyID, teamID: pki.teamID),
            environment: .custom(host: "127.0.0.1", port: server.port, caFile: pki.caCertificate.path), retries: retries))
        let token = APNSClientScriptedServerTests.token
        let result = await client.send(try APNSClientScriptedServerTests.update(), to: token)
        await client.shutdown()
        await server.stop()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .connectionLost)
        #expect(error.message.contains("GOAWAY"), "\(error.message)")
        #expect(error.message.contains("/3/device/\(token.prefix(8))…"), "\(error.message)")
        #expect(!error.message.contains(String(token.prefix(9))))
    }
}
