import Foundation
@testable import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineTesting
import Synchronization
import Testing

/// An in-memory connection whose answers the test releases by hand, recording concurrency.
final class ScriptedConnection: PushConnection {
    struct State {
        var inFlight = 0
        var maxInFlight = 0
        var waiting: [CheckedContinuation<WireResponse, Never>] = []
        var sent = 0
    }

    let state = Mutex(State())
    let usable = Atomic<Bool>(true)

    func send(_ request: WireRequest, timeout: Duration) async throws(WireError) -> WireResponse {
        await withCheckedContinuation { continuation in
            state.withLock { s in
                s.inFlight += 1
                s.sent += 1
                s.maxInFlight = max(s.maxInFlight, s.inFlight)
                s.waiting.append(continuation)
            }
        }
    }

    /// Answers the oldest waiting request with `status` (a reason body when not 200).
    func answer(_ status: Int, reason: String = "BadDeviceToken") {
        let continuation = state.withLock { s -> CheckedContinuation<WireResponse, Never>? in
            guard !s.waiting.isEmpty else { return nil }
            s.inFlight -= 1
            return s.waiting.removeFirst()
        }
        let body = status == 200 ? [] : Array("{\"reason\":\"\(reason)\"}".utf8)
        continuation?.resume(returning: WireResponse(status: status, headers: [("apns-id", "x")], body: body))
    }

    /// Waits until `count` requests are waiting for an answer, with a deadline.
    func waitForWaiting(_ count: Int) async throws {
        try await until("\(count) requests waiting for an answer at the scripted connection", poll: .milliseconds(1)) {
            state.withLock { $0.waiting.count } >= count
        }
    }

    var isUsable: Bool { usable.load(ordering: .relaxed) }
    func close(grace: Duration) async { usable.store(false, ordering: .relaxed) }
}

struct ScriptedConnector: PushConnector {
    let connection: ScriptedConnection
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection { connection }
}

@Suite struct ConnectionGateTests {
    static func client(_ connection: ScriptedConnection, token: Bool = true, grace: Duration = .seconds(5)) throws -> APNSClient {
        let auth: APNSConfiguration.Authentication = token
            ? .token(key: try P256PrivateKey.generate(), keyID: "KEY1234567", teamID: "TEAM123456")
            : .certificate(certFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem")
        var timeouts = APNSConfiguration.Timeouts()
        timeouts.shutdownGrace = grace
        return APNSClient(
            configuration: APNSConfiguration(authentication: auth, environment: .custom(host: "127.0.0.1", port: 1, caFile: nil), timeouts: timeouts),
            connector: ScriptedConnector(connection: connection))
    }

    /// A certificate-auth client (no one-stream gate) that keeps at most 16 bulk pushes in flight.
    static func bulkClient(_ connection: ScriptedConnection) -> APNSClient {
        let auth = APNSConfiguration.Authentication.certificate(certFile: "/c", keyFile: "/k")
        return APNSClient(
            configuration: APNSConfiguration(authentication: auth, environment: .custom(host: "127.0.0.1", port: 1, caFile: nil), maxInFlight: 16),
            connector: ScriptedConnector(connection: connection))
    }

    static let push = PushRequest.notification(NotificationPush(alert: Alert(body: .plain("hi"))), bundleID: "com.example.flights")
    static let token = String(repeating: "ab", count: 32)

    @Test func aTokenConnectionCarriesOneStreamUntilItsFirstAcceptedPush() async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection)
        let results = Task {
            await withTaskGroup(of: APNSResult.self) { group in
                for _ in 0..<10 { group.addTask { await client.send(Self.push, to: Self.token) } }
                return await group.reduce(into: [APNSResult]()) { $0.append($1) }
            }
        }
        try await connection.waitForWaiting(1)
        // A rejection does not open the connection: the next push still goes alone.
        connection.answer(400)
        try await connection.waitForWaiting(1)
        #expect(connection.state.withLock { $0.maxInFlight } == 1)
        connection.answer(200)
        // After the first accepted push the other eight go out together.
        try await connection.waitForWaiting(8)
        #expect(connection.state.withLock { $0.maxInFlight } == 8)
        for _ in 0..<8 { connection.answer(200) }
        let all = await results.value
        #expect(all.filter(\.isAccepted).count == 9)
        #expect(all.count == 10)
        await client.shutdown()
    }

    @Test func aCertificateConnectionIsNotGated() async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection, token: false)
        let results = Task {
            await withTaskGroup(of: APNSResult.self) { group in
                for _ in 0..<5 { group.addTask { await client.send(Self.push, to: Self.token) } }
                return await group.reduce(into: 0) { n, r in n += r.isAccepted ? 1 : 0 }
            }
        }
        try await connection.waitForWaiting(5)
        for _ in 0..<5 { connection.answer(200) }
        #expect(await results.value == 5)
        await client.shutdown()
    }

    @Test func certificateAuthRefusesLiveActivityPushesBeforeSending() async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection, token: false)
        let state = FlightAttributes.ContentState(status: .boarding, gate: "A1", boardingTime: Date())
        let push = PushRequest.liveActivity(try LiveActivityPush.update(state: state), bundleID: "com.example.flights")
        let result = await client.send(push, to: Self.token)
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .configuration)
        #expect(error.message.contains("liveactivity") && error.message.contains("token authentication"))
        #expect(connection.state.withLock { $0.sent } == 0)
        await client.shutdown()
    }

    @Test func shutdownDrainsInFlightPushesAndRefusesNewOnes() async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection, token: false)
        let inFlight = Task { await client.send(Self.push, to: Self.token) }
        try await connection.waitForWaiting(1)
        let shutdown = Task { await client.shutdown() }
        try await until("shutdown to begin") { client.isShuttingDown }
        // New pushes are refused once shutdown has begun; the one in flight is still waited for.
        let refused = await client.send(Self.push, to: Self.token)
        #expect(refused == .failed(APNSClientError(.shutdown, "the client is shut down; the push was not sent")))
        #expect(client.inFlight == 1)
        connection.answer(200)
        #expect(await inFlight.value.isAccepted)
        await shutdown.value
        #expect(!connection.isUsable)
    }

    @Test(arguments: ["", "abc", "zz" + String(repeating: "0", count: 62), String(repeating: "0", count: 63)])
    func malformedDeviceTokensAreRefusedWithAPrefixOnly(_ token: String) async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection)
        let result = await client.send(Self.push, to: token)
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .invalidDeviceToken)
        if token.count > 8 { #expect(!error.message.contains(token)) }
        #expect(connection.state.withLock { $0.sent } == 0)
        await client.shutdown()
    }

    /// Every byte at the edges of the hex ranges: the digits and both letter cases pass, their
    /// neighbours (`/`, `:`, `@`, `G`, `` ` ``, `g`), space, DEL and non-ASCII fail.
    @Test func deviceTokenHexCheckAtRangeEdges() {
        for byte in UInt8(0)...255 {
            let isHex = (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
            let token = String(decoding: [UInt8(ascii: "a"), byte], as: UTF8.self)
            // Bytes above 127 are not valid UTF-8 alone: decoding makes U+FFFD, never hex.
            let problem = APNSClient.checkDeviceToken(byte < 128 ? token : "a\u{FFFD}")
            #expect((problem == nil) == (isHex && byte < 128), "byte \(byte)")
        }
        #expect(APNSClient.checkDeviceToken(String(repeating: "aF09", count: 16)) == nil)
    }

    /// Free-text header values cannot smuggle a line break or NUL into the header block: the push
    /// fails before it reaches a connection, naming the header.
    @Test(arguments: [("\r\n", "apns-topic", false), ("\n", "apns-collapse-id", true), ("\u{0}", "apns-topic", false)])
    func headerValuesWithLineBreaksFailBeforeSending(_ bad: String, _ header: String, _ inCollapseID: Bool) async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection)
        var push = Self.push
        if inCollapseID { push.collapseID = "gate" + bad + "x-injected: 1" } else { push.topic = "com.example.flights" + bad }
        let result = await client.send(push, to: Self.token)
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains(header))
        #expect(connection.state.withLock { $0.sent } == 0)
        await client.shutdown()
    }

    @Test func invalidPushesFailValidationBeforeSending() async throws {
        let connection = ScriptedConnection()
        let client = try Self.client(connection)
        var push = Self.push
        push.collapseID = String(repeating: "c", count: 65)
        let result = await client.send(push, to: Self.token)
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains("65 bytes"))
        #expect(connection.state.withLock { $0.sent } == 0)
        await client.shutdown()
    }

    /// Completions start the next push themselves; a consumer that stops reading stalls the send
    /// (bounded), and reading again resumes it until every push has exactly one result.
    @Test func bulkSendResumesAfterTheConsumerPausesAndDeliversEachPushOnce() async throws {
        let connection = ScriptedConnection()
        let client = Self.bulkClient(connection)
        let total = 300
        let pushes = (0..<total).map { (Self.push, String(format: "%064x", $0)) }
        let answering = Atomic<Bool>(true)
        // The server: answers whatever waits, every third push rejected.
        let server = Task {
            var answered = 0
            // Stopped by the test once it has every result; the deadline only ends a failed test's server.
            let deadline = ContinuousClock.now + .seconds(120)
            while answering.load(ordering: .relaxed), ContinuousClock.now < deadline {
                if connection.state.withLock({ !$0.waiting.isEmpty }) {
                    connection.answer(answered % 3 == 2 ? 400 : 200)
                    answered += 1
                }
                await Task.yield()
            }
        }
        var seen: [Int: APNSResult] = [:]
        let iterator = client.sendAll(pushes).makeAsyncIterator()
        for _ in 0..<10 {
            guard let outcome = await iterator.next() else { break }
            seen[outcome.index] = outcome.result
        }
        // Paused: at most the in-flight window plus the result buffer get sent.
        let stalled = { connection.state.withLock { $0.sent } }
        var previous = -1
        // No signal says "nothing more will be sent": wait until the count stays put across 200
        // scheduler turns (every sender had its chance), bounded by the push count.
        while stalled() != previous {
            previous = stalled()
            for _ in 0..<200 { await Task.yield() }
        }
        #expect(stalled() <= 10 + 16 + 32)
        while let outcome = await iterator.next() {
            #expect(seen[outcome.index] == nil, "push \(outcome.index) twice")
            #expect(outcome.deviceToken == pushes[outcome.index].1)
            seen[outcome.index] = outcome.result
        }
        answering.store(false, ordering: .relaxed)
        await server.value
        #expect(seen.count == total)
        #expect(seen.values.filter(\.isAccepted).count == total - total / 3)
        #expect(connection.state.withLock { $0.sent } == total)
        await client.shutdown()
    }

    /// A million pushes through `sendAll` hold no more than `maxInFlight` results at once.
    @Test func bulkSendKeepsAtMostMaxInFlightOutstanding() async throws {
        let connection = ScriptedConnection()
        let client = Self.bulkClient(connection)
        let pushes = Repeated(element: (Self.push, Self.token), count: 1_000_000)
        do {
            let iterator = client.sendAll(pushes).makeAsyncIterator()
            try await connection.waitForWaiting(16)
            // Nobody reads results yet: answering fills the 16-result buffer and frees 16 workers.
            for _ in 0..<16 { connection.answer(200) }
            try await connection.waitForWaiting(16)
            for _ in 0..<16 { connection.answer(200) }
            // Buffer full and 16 more done: the workers now block on the buffer; no more are sent.
            // A check that nothing happens has no signal to wait for: 100 scheduler turns give any
            // worker that would wrongly send the chance to (a bounded count, not a readiness wait).
            for _ in 0..<100 { await Task.yield() }
            #expect(connection.state.withLock { $0.sent } <= 48)
            let first = await iterator.next()
            #expect(first?.result.isAccepted == true)
            #expect(first?.deviceToken == Self.token)
        }
        // The iterator is gone: the workers stop after their current push.
        try await until("the workers to stop sending once the iterator is gone", poll: .milliseconds(1)) {
            guard connection.state.withLock({ !$0.waiting.isEmpty }) else { return true }
            connection.answer(200)
            return false
        }
        await client.shutdown()
        #expect(connection.state.withLock { $0.sent } < 100)
    }
}

/// `count` copies of one element, without storing them.
struct Repeated<Element: Sendable>: Sequence, Sendable {
    let element: Element
    let count: Int
    func makeIterator() -> AnyIterator<Element> {
        var left = count
        let element = self.element
        return AnyIterator { () -> Element? in
            guard left > 0 else { return nil }
            left -= 1
            return element
        }
    }
}
