import Foundation
@testable import LivelineAPNS
import Synchronization
import Testing

/// A connector that refuses every connection, counting attempts.
final class RefusingConnector: PushConnector {
    let attempts = Atomic<Int>(0)
    let kind: WireError.Kind
    init(kind: WireError.Kind) { self.kind = kind }
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection {
        attempts.add(1, ordering: .relaxed)
        throw WireError(kind: kind, message: "connection refused by the test")
    }
}

@Suite struct ConnectionPoolTests {
    static func pool(_ connector: RefusingConnector) -> ConnectionPool {
        ConnectionPool(
            endpoint: Endpoint(host: "127.0.0.1", port: 1), size: 1, connector: connector, timeouts: APNSConfiguration.Timeouts(),
            reconnect: Backoff(initial: .milliseconds(10), maximum: .milliseconds(40), jitter: 0), gated: true)
    }

    /// Each failed attempt doubles the wait before the next one, up to the cap.
    @Test func reconnectsBackOffExponentiallyToTheCap() async throws {
        let connector = RefusingConnector(kind: .connectTransient)
        let pool = Self.pool(connector)
        var delays: [Duration] = []
        for attempt in 1...4 {
            await #expect(throws: WireError.self) { try await pool.lease() }
            #expect(connector.attempts.load(ordering: .relaxed) == attempt)
            delays.append(pool.lastReconnectDelay)
            #expect(pool.reconnectDelay <= pool.lastReconnectDelay)
        }
        #expect(delays == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(40)])
    }

    @Test func aShutDownPoolRefusesAtOnce() async throws {
        let connector = RefusingConnector(kind: .connectTransient)
        let pool = Self.pool(connector)
        await pool.close(grace: .zero)
        let error = await #expect(throws: WireError.self) { try await pool.lease() }
        #expect(error?.kind == .closed)
        #expect(connector.attempts.load(ordering: .relaxed) == 0)
    }

    /// A client facing a server that refuses connections gives up after its retries with a
    /// connect failure, having tried once per retry.
    @Test func sendGivesUpWithConnectFailedAfterItsRetries() async throws {
        let connector = RefusingConnector(kind: .connectTransient)
        var retries = APNSConfiguration.Retries()
        retries.maxRetries = 2
        retries.reconnect = Backoff(initial: .milliseconds(5), maximum: .milliseconds(10), jitter: 0)
        let client = APNSClient(
            configuration: APNSConfiguration(
                authentication: .certificate(certFile: "/c", keyFile: "/k"), environment: .custom(host: "127.0.0.1", port: 1, caFile: nil),
                retries: retries),
            connector: connector)
        let result = await client.send(ConnectionGateTests.push, to: ConnectionGateTests.token)
        await client.shutdown()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .connectFailed)
        #expect(error.message.contains("127.0.0.1:1"))
        #expect(connector.attempts.load(ordering: .relaxed) == 3)
    }

    @Test func permanentConnectFailuresAreNotRetried() async throws {
        let connector = RefusingConnector(kind: .connectPermanent)
        let client = APNSClient(
            configuration: APNSConfiguration(
                authentication: .certificate(certFile: "/c", keyFile: "/k"), environment: .custom(host: "127.0.0.1", port: 1, caFile: nil)),
            connector: connector)
        let result = await client.send(ConnectionGateTests.push, to: ConnectionGateTests.token)
        await client.shutdown()
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .connectFailed)
        #expect(connector.attempts.load(ordering: .relaxed) == 1)
    }
}
