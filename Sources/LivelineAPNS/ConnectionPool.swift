import Foundation
import Synchronization

/// A connection in a pool, with the client-side stream gate APNs needs on token connections:
/// one stream until the first accepted push, then as many as the server's SETTINGS allow.
final class PooledConnection: Sendable {
    let connection: any PushConnection
    private let gate: AsyncLimiter?
    private let load = Atomic<Int>(0)
    private let retired = Atomic<Bool>(false)
    private let opened: Atomic<Bool>

    init(_ connection: any PushConnection, startGated: Bool) {
        self.connection = connection
        // nghttp2 enforces the server's SETTINGS_MAX_CONCURRENT_STREAMS; the gate only covers the
        // window before a token connection is trusted, when APNs allows a single stream.
        gate = startGated ? AsyncLimiter(limit: 1) : nil
        opened = Atomic(!startGated)
    }

    var inFlight: Int { load.load(ordering: .relaxed) }
    var isUsable: Bool { connection.isUsable && !retired.load(ordering: .acquiring) }
    /// Past the one-stream gate (or never gated): requests go straight to the transport.
    var isOpen: Bool { opened.load(ordering: .acquiring) }

    /// Stops taking requests (APNs said the connection is finished).
    func retire() { retired.store(true, ordering: .releasing) }

    /// Sends on an open connection (`isOpen`), calling `completion` once; it must not block.
    func send(_ request: WireRequest, timeout: Duration, completion: @escaping @Sendable (Result<WireResponse, WireError>) -> Void) {
        load.add(1, ordering: .relaxed)
        connection.send(request, timeout: timeout) { [self] outcome in
            load.subtract(1, ordering: .relaxed)
            completion(outcome)
        }
    }

    /// Sends, through the gate while the connection is not yet trusted.
    ///
    /// The whole attempt, the wait at the gate included, ends by `deadline`: a push queued
    /// behind others on an untrusted connection fails with `.deadline` rather than waiting for
    /// each of them in turn, and cancelling the calling task ends a wait at the gate with
    /// `.cancelled` (the push was not sent).
    func send(_ request: WireRequest, deadline: ContinuousClock.Instant) async throws(WireError) -> WireResponse {
        load.add(1, ordering: .relaxed)
        defer { load.subtract(1, ordering: .relaxed) }
        guard let gate, !opened.load(ordering: .acquiring) else {
            return try await connection.send(request, timeout: try Self.remaining(until: deadline))
        }
        let start = ContinuousClock.now
        guard await gate.acquire(until: deadline) else {
            let waited = ContinuousClock.now - start
            if Task.isCancelled {
                throw WireError(kind: .cancelled, message: "cancelled after waiting \(waited) for the connection's one-stream gate; the push was not sent")
            }
            throw WireError(kind: .deadline, message: "waited \(waited) for the connection's one-stream gate (it opens after the first accepted push); the push was not sent")
        }
        defer { gate.release() }
        let response = try await connection.send(request, timeout: try Self.remaining(until: deadline))
        if (200...299).contains(response.status), !opened.exchange(true, ordering: .acquiringAndReleasing) {
            gate.setLimit(Int.max / 2)
        }
        return response
    }

    /// The time left before `deadline`, or `.deadline` when none is.
    private static func remaining(until deadline: ContinuousClock.Instant) throws(WireError) -> Duration {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw WireError(kind: .deadline, message: "the deadline passed before the push could be sent; the push was not sent") }
        return left
    }
}

/// Up to `size` connections to one endpoint, opened on demand, replaced when they fail or get
/// GOAWAY, reconnecting with exponential backoff and jitter.
///
/// Leasing a ready connection takes one lock and no suspension; only when none is ready does a
/// caller wait for a connection attempt.
final class ConnectionPool: Sendable {
    private enum Slot {
        case empty(failures: Int, retryAt: ContinuousClock.Instant?)
        case connecting(Task<PooledConnection, any Error>, failures: Int)
        case ready(PooledConnection)
    }

    private struct State {
        var slots: [Slot]
        var closed = false
        var next = 0
        var lastReconnectDelay: Duration = .zero
    }

    private enum Step {
        case use(PooledConnection)
        case wait(Task<PooledConnection, any Error>)
        case sleep(ContinuousClock.Instant)
        case fail(WireError)
    }

    let endpoint: Endpoint
    private let connector: any PushConnector
    private let timeouts: APNSConfiguration.Timeouts
    private let reconnect: Backoff
    private let gated: Bool
    private let state: Mutex<State>

    init(endpoint: Endpoint, size: Int, connector: any PushConnector, timeouts: APNSConfiguration.Timeouts, reconnect: Backoff, gated: Bool) {
        self.endpoint = endpoint
        self.connector = connector
        self.timeouts = timeouts
        self.reconnect = reconnect
        self.gated = gated
        state = Mutex(State(slots: Array(repeating: .empty(failures: 0, retryAt: nil), count: max(1, size))))
    }

    /// A usable connection ready now, without waiting; nil when none is (then use `lease`).
    /// It changes no slot: empty, failed or retired ones are left to `lease`.
    func leaseReady() -> PooledConnection? {
        state.withLock { s -> PooledConnection? in
            if s.closed { return nil }
            var best: PooledConnection?
            var bestLoad = Int.max
            let count = s.slots.count
            s.next = (s.next + 1) % count
            for offset in 0..<count {
                guard case .ready(let c) = s.slots[(s.next + offset) % count], c.isUsable else { return nil }
                let load = c.inFlight
                if load < bestLoad { best = c; bestLoad = load }
            }
            return best
        }
    }

    /// A usable connection: the least loaded ready one, opening empty slots as it goes.
    func lease() async throws(WireError) -> PooledConnection {
        while true {
            switch nextStep() {
            case .use(let connection): return connection
            case .fail(let error): throw error
            case .sleep(let instant): try? await Task.sleep(until: instant, clock: .continuous)
            case .wait(let task):
                do {
                    return try await task.value
                } catch let error as WireError {
                    throw error
                } catch {
                    throw WireError(kind: .connectTransient, message: "\(error)")
                }
            }
        }
    }

    /// One look at the slots: use, wait for or schedule a connection (retired ones are closed).
    private func nextStep() -> Step {
        var retired: [PooledConnection] = []
        let step = state.withLock { s -> Step in
            if s.closed { return .fail(WireError(kind: .closed, message: "the client is shut down")) }
            let now = ContinuousClock.now
            var best: PooledConnection?
            var bestLoad = Int.max
            var connecting: Task<PooledConnection, any Error>?
            var earliestRetry: ContinuousClock.Instant?
            let count = s.slots.count
            // Start at a rotating index so equal loads spread over the connections.
            s.next = (s.next + 1) % count
            for offset in 0..<count {
                let i = (s.next + offset) % count
                switch s.slots[i] {
                case .ready(let c):
                    if c.isUsable {
                        let load = c.inFlight
                        if load < bestLoad { best = c; bestLoad = load }
                    } else {
                        retired.append(c)
                        s.slots[i] = .empty(failures: 0, retryAt: nil)
                        startConnecting(i, &s)
                    }
                case .empty(_, let retryAt):
                    if let retryAt, retryAt > now {
                        earliestRetry = min(earliestRetry ?? retryAt, retryAt)
                    } else {
                        startConnecting(i, &s)
                    }
                case .connecting:
                    break
                }
                if connecting == nil, case .connecting(let task, _) = s.slots[i] { connecting = task }
            }
            if let best { return .use(best) }
            if let connecting { return .wait(connecting) }
            return .sleep(earliestRetry ?? now + .milliseconds(10))
        }
        for c in retired {
            let grace = timeouts.shutdownGrace
            Task { await c.connection.close(grace: grace) }
        }
        return step
    }

    private func startConnecting(_ index: Int, _ s: inout State) {
        guard !s.closed else { return }
        var failures = 0
        if case .empty(let f, _) = s.slots[index] { failures = f }
        let connector = self.connector, endpoint = self.endpoint, timeouts = self.timeouts, gated = self.gated
        let task = Task<PooledConnection, any Error> {
            do {
                let connection = try await connector.connect(to: endpoint, timeouts: timeouts)
                let pooled = PooledConnection(connection, startGated: gated)
                if !self.connected(index, pooled) {
                    await connection.close(grace: .zero)
                    throw WireError(kind: .closed, message: "the client is shut down")
                }
                return pooled
            } catch {
                self.failed(index)
                throw error
            }
        }
        s.slots[index] = .connecting(task, failures: failures)
    }

    private func connected(_ index: Int, _ connection: PooledConnection) -> Bool {
        state.withLock { s in
            if s.closed { return false }
            s.slots[index] = .ready(connection)
            return true
        }
    }

    private func failed(_ index: Int) {
        state.withLock { s in
            guard case .connecting(_, let failures) = s.slots[index] else { return }
            let delay = reconnect.delay(attempt: failures)
            s.lastReconnectDelay = delay
            s.slots[index] = .empty(failures: failures + 1, retryAt: ContinuousClock.now + delay)
        }
    }

    /// The wait scheduled after the most recent failed connection attempt.
    var lastReconnectDelay: Duration { state.withLock { $0.lastReconnectDelay } }

    /// The wait before the soonest reconnection attempt (zero when one may start now).
    var reconnectDelay: Duration {
        state.withLock { s in
            var soonest: Duration?
            for slot in s.slots {
                if case .empty(_, let at?) = slot {
                    let d = at - ContinuousClock.now
                    soonest = min(soonest ?? d, d)
                }
            }
            return max(soonest ?? .zero, .zero)
        }
    }

    /// Closes every connection after its in-flight requests or `grace`.
    func close(grace: Duration) async {
        let connections = state.withLock { s -> [PooledConnection] in
            s.closed = true
            var connections: [PooledConnection] = []
            for slot in s.slots {
                switch slot {
                case .ready(let c): connections.append(c)
                case .connecting(let task, _): task.cancel()
                case .empty: break
                }
            }
            s.slots = s.slots.map { _ in .empty(failures: 0, retryAt: nil) }
            return connections
        }
        await withTaskGroup(of: Void.self) { group in
            for c in connections { group.addTask { await c.connection.close(grace: grace) } }
        }
    }

    /// Connections now open and usable.
    var openConnections: Int {
        state.withLock { s in s.slots.reduce(0) { n, slot in if case .ready(let c) = slot, c.isUsable { n + 1 } else { n } } }
    }
}
