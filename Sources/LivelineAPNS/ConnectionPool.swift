import Foundation
import Synchronization

/// A connection in a pool, with the client-side stream gate APNs needs on token connections:
/// one stream until the first accepted push, then as many as the server's SETTINGS allow.
final class PooledConnection: Sendable {
    let connection: any PushConnection
    let gate: AsyncLimiter
    private let state: Mutex<(inFlight: Int, opened: Bool, retired: Bool)>

    init(_ connection: any PushConnection, startGated: Bool) {
        self.connection = connection
        // nghttp2 enforces the server's SETTINGS_MAX_CONCURRENT_STREAMS; the gate only covers the
        // window before a token connection is trusted, when APNs allows a single stream.
        gate = AsyncLimiter(limit: startGated ? 1 : Int.max / 2)
        state = Mutex((0, !startGated, false))
    }

    var inFlight: Int { state.withLock { $0.inFlight } }
    var isUsable: Bool { connection.isUsable && !state.withLock { $0.retired } }

    /// Stops taking requests (APNs said the connection is finished).
    func retire() { state.withLock { $0.retired = true } }

    /// Sends through the gate.
    func send(_ request: WireRequest, timeout: Duration) async throws(WireError) -> WireResponse {
        await gate.acquire()
        state.withLock { $0.inFlight += 1 }
        defer {
            state.withLock { $0.inFlight -= 1 }
            gate.release()
        }
        let response = try await connection.send(request, timeout: timeout)
        if (200...299).contains(response.status) {
            let open = state.withLock { s -> Bool in
                defer { s.opened = true }
                return !s.opened
            }
            if open { gate.setLimit(Int.max / 2) }
        }
        return response
    }
}

/// Up to `size` connections to one endpoint, opened on demand, replaced when they fail or get
/// GOAWAY, reconnecting with exponential backoff and jitter.
actor ConnectionPool {
    private enum Slot {
        case empty(failures: Int, retryAt: ContinuousClock.Instant?)
        case connecting(Task<PooledConnection, any Error>, failures: Int)
        case ready(PooledConnection)
    }

    let endpoint: Endpoint
    private let connector: any PushConnector
    private let timeouts: APNSConfiguration.Timeouts
    private let reconnect: Backoff
    private let gated: Bool
    private var slots: [Slot]
    private var closed = false
    private var next = 0

    init(endpoint: Endpoint, size: Int, connector: any PushConnector, timeouts: APNSConfiguration.Timeouts, reconnect: Backoff, gated: Bool) {
        self.endpoint = endpoint
        self.connector = connector
        self.timeouts = timeouts
        self.reconnect = reconnect
        self.gated = gated
        slots = Array(repeating: .empty(failures: 0, retryAt: nil), count: max(1, size))
    }

    /// A usable connection: the least loaded ready one, opening empty slots as it goes.
    func lease() async throws(WireError) -> PooledConnection {
        while true {
            if closed { throw WireError(kind: .closed, message: "the client is shut down") }
            let now = ContinuousClock.now
            var best: PooledConnection?
            var connecting: (index: Int, task: Task<PooledConnection, any Error>)?
            var earliestRetry: ContinuousClock.Instant?
            for i in slots.indices {
                switch slots[i] {
                case .ready(let c):
                    if c.isUsable {
                        if best == nil || c.inFlight < best!.inFlight { best = c }
                    } else {
                        slots[i] = .empty(failures: 0, retryAt: nil)
                        Task { await c.connection.close(grace: timeouts.shutdownGrace) }
                        startConnecting(i)
                    }
                case .empty(_, let retryAt):
                    if let retryAt, retryAt > now {
                        earliestRetry = min(earliestRetry ?? retryAt, retryAt)
                    } else {
                        startConnecting(i)
                    }
                case .connecting:
                    break
                }
                if case .connecting(let task, _) = slots[i], connecting == nil { connecting = (i, task) }
            }
            if let best { return best }
            if let connecting {
                do {
                    return try await connecting.task.value
                } catch let error as WireError {
                    if error.kind == .connectPermanent { throw error }
                    // Transient: report to the caller, whose retry loop decides.
                    throw error
                } catch {
                    throw WireError(kind: .connectTransient, message: "\(error)")
                }
            }
            if let earliestRetry {
                try? await Task.sleep(until: earliestRetry, clock: .continuous)
            }
        }
    }

    private func startConnecting(_ index: Int) {
        guard !closed else { return }
        var failures = 0
        if case .empty(let f, _) = slots[index] { failures = f }
        let connector = self.connector, endpoint = self.endpoint, timeouts = self.timeouts, gated = self.gated
        let task = Task<PooledConnection, any Error> {
            do {
                let connection = try await connector.connect(to: endpoint, timeouts: timeouts)
                let pooled = PooledConnection(connection, startGated: gated)
                self.connected(index, pooled)
                return pooled
            } catch {
                self.failed(index)
                throw error
            }
        }
        slots[index] = .connecting(task, failures: failures)
    }

    private func connected(_ index: Int, _ connection: PooledConnection) {
        if closed {
            Task { await connection.connection.close(grace: .zero) }
            return
        }
        slots[index] = .ready(connection)
    }

    private func failed(_ index: Int) {
        guard case .connecting(_, let failures) = slots[index] else { return }
        let delay = reconnect.delay(attempt: failures)
        slots[index] = .empty(failures: failures + 1, retryAt: ContinuousClock.now + delay)
    }

    /// The delay before the next reconnection attempt of the slot that failed most recently.
    var reconnectDelay: Duration {
        var soonest: Duration?
        for slot in slots {
            if case .empty(_, let at?) = slot {
                let d = at - ContinuousClock.now
                soonest = min(soonest ?? d, d)
            }
        }
        return max(soonest ?? .zero, .zero)
    }

    /// Closes every connection after its in-flight requests or `grace`.
    func close(grace: Duration) async {
        closed = true
        var connections: [PooledConnection] = []
        for slot in slots {
            switch slot {
            case .ready(let c): connections.append(c)
            case .connecting(let task, _): task.cancel()
            case .empty: break
            }
        }
        slots = slots.map { _ in .empty(failures: 0, retryAt: nil) }
        await withTaskGroup(of: Void.self) { group in
            for c in connections { group.addTask { await c.connection.close(grace: grace) } }
        }
    }

    /// Connections now open and usable.
    var openConnections: Int {
        slots.reduce(0) { n, slot in if case .ready(let c) = slot, c.isUsable { n + 1 } else { n } }
    }
}
