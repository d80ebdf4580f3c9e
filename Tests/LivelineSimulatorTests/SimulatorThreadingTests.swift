import Dispatch
import Foundation
import LivelineHTTP2
import LivelineTesting
import Synchronization
@testable import LivelineSimulator
import Testing

/// A value behind a lock.
private final class Cell<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func get() -> Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
}

/// The simulator's work runs on the HTTP/2 server's worker, never on its event loop.
@Suite("SimulatorServer threading: the loop does I/O only")
struct SimulatorThreadingTests {
    @Test("while the simulator's state is held elsewhere, a push waits but the connection still answers PING; then the push is accepted")
    func loopServesWhileSimulatorIsBusy() async throws {
        let served = try await ServedSimulator.start()
        let connection = try await served.connect()
        let jwt = try served.token()
        let alert = served.alert(token: jwt)
        #expect(try await connection.send(alert).status == 200)

        // Another thread holds the simulator's lock, as a long validation would.
        let held = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let simulator = served.simulator
        let holder = Thread {
            simulator.state.withLock { _ in
                held.signal()
                // Holds the lock (the behaviour under test) until released, for at most 300 s.
                _ = release.wait(timeout: .now() + 300)
            }
        }
        holder.start()
        try await held.wait("the holder thread to take the simulator's lock")
        let answered = TestSignal()
        let status = Cell<Int?>(nil)
        connection.send(alert) { result in
            status.set(try? result.get().status)
            answered.signal()
        }
        // The client writes the push and the first PING in one flush, so once that PING is
        // answered the push is at the server ahead of the second; before, the handler ran on the
        // loop, which then waited for the lock and never answered the second PING.
        _ = try await connection.ping()
        let rtt = try await connection.ping()
        #expect(rtt < .seconds(30))
        #expect(status.get() == nil)
        release.signal()
        try await answered.wait("the push's answer once the lock was released")
        #expect(status.get() == 200)
        #expect(served.simulator.counts.accepted == 2)
        await connection.close()
        await served.stop()
    }
}
