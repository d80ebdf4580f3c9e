import Foundation
@testable import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineTesting
import Synchronization
import Testing

/// A server that never answers: each request ends when its timeout passes, as a real transport's would.
final class SilentConnection: PushConnection {
    let sent = Atomic<Int>(0)

    func send(_ request: WireRequest, timeout: Duration) async throws(WireError) -> WireResponse {
        sent.add(1, ordering: .relaxed)
        // The behaviour staged: a server that never answers, so the request lasts its whole timeout.
        try? await Task.sleep(for: timeout)
        throw WireError(kind: .deadline, message: "no response within \(timeout)")
    }

    var isUsable: Bool { true }
    func close(grace: Duration) async {}
}

struct SilentConnector: PushConnector {
    let connection: SilentConnection
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection { connection }
}

@Suite struct GateDeadlineTests {
    static let push = ConnectionGateTests.push
    static let token = ConnectionGateTests.token

    static func tokenClient(_ connector: any PushConnector, deadline: Duration = .seconds(30)) throws -> APNSClient {
        var timeouts = APNSConfiguration.Timeouts()
        timeouts.requestDeadline = deadline
        timeouts.shutdownGrace = .milliseconds(100)
        return APNSClient(
            configuration: APNSConfiguration(
                authentication: .token(key: try P256PrivateKey.generate(), keyID: "KEY1234567", teamID: "TEAM123456"),
                environment: .custom(host: "127.0.0.1", port: 1, caFile: nil), timeouts: timeouts),
            connector: connector)
    }

    /// Pushes queued behind a token connection's one-stream gate, which never opens because the
    /// server never answers, each end with deadline-exceeded within about one deadline, not one
    /// deadline per push ahead of them.
    @Test func pushesBehindAGateThatNeverOpensEndAtTheirOwnDeadline() async throws {
        let deadline = Duration.milliseconds(250)
        let pushes = 200
        let client = try Self.tokenClient(SilentConnector(connection: SilentConnection()), deadline: deadline)
        // Waiting in turn would take pushes × deadline (50 s). The bound is generous (20 s) for a
        // loaded machine whose cooperative threads other tests may block for seconds.
        let results = await finished(within: deadline * 80) {
            await withTaskGroup(of: APNSResult.self) { group in
                for _ in 0..<pushes { group.addTask { await client.send(Self.push, to: Self.token) } }
                return await group.reduce(into: [APNSResult]()) { $0.append($1) }
            }
        }
        await client.shutdown()
        guard let results else {
            Issue.record("the pushes did not all finish within 80 × the \(deadline) deadline")
            return
        }
        #expect(results.count == pushes)
        for result in results {
            guard case .failed(let error) = result else { Issue.record("\(result)"); continue }
            #expect(error.code == .deadlineExceeded, "\(error)")
        }
    }

    /// Cancelling pushes that wait at the gate ends them at once with `cancelled`, unsent; the
    /// push already on the connection still gets its verdict.
    @Test func cancellingPushesWaitingAtTheGateEndsThemUnsent() async throws {
        let connection = ScriptedConnection()
        let client = try Self.tokenClient(ScriptedConnector(connection: connection))
        let done = Shared<[APNSResult]>([])
        let first = Task { await client.send(Self.push, to: Self.token) }
        try await connection.waitForWaiting(1)
        let waiting = (0..<9).map { _ in
            Task {
                let result = await client.send(Self.push, to: Self.token)
                done.withLock { $0.append(result) }
            }
        }
        // All nine inside the client; then a bounded number of scheduler turns to let them reach
        // the gate. Not a readiness wait: cancelling earlier ends them with `cancelled` as well.
        try await until("the nine pushes to enter the client") { client.inFlight == 10 }
        for _ in 0..<200 { await Task.yield() }
        for task in waiting { task.cancel() }
        try await until("the nine cancelled pushes to end (they kept waiting for the gate)", within: .seconds(10)) { done.withLock { $0.count } == 9 }
        #expect(connection.state.withLock { $0.sent } == 1)
        for result in done.withLock({ $0 }) {
            guard case .failed(let error) = result else { Issue.record("\(result)"); continue }
            #expect(error.code == .cancelled, "\(error)")
        }
        connection.answer(200)
        #expect(await first.value.isAccepted)
        await client.shutdown()
    }
}
