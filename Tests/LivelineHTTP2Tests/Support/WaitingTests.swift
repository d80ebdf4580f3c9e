import Foundation
import LivelineTesting
import Synchronization
import Testing

/// The test kit's waits: a condition that never comes fails with a message naming it, once the
/// deadline passed; one that comes returns without failing. Upper bounds on wall-clock time are
/// not asserted: beside the whole suite the cooperative threads are held by synchronous tests for
/// tens of seconds, which the kit's task-made waits do not count (`RunnableClock`).
/// A flag behind an `NSCondition`.
private final class Gate: Sendable {
    let condition = NSCondition()
    let open = Mutex(false)
    func raise() {
        condition.lock()
        open.withLock { $0 = true }
        condition.broadcast()
        condition.unlock()
    }
}

@Suite("LivelineTesting: waits with a deadline")
struct WaitingTests {
    /// Runs `body` and returns its error and how long it took.
    static func failure(_ body: () async throws -> Void) async -> (error: (any Error)?, took: Duration) {
        let started = ContinuousClock.now
        do {
            try await body()
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }

    @Test("until: a condition that never holds fails naming what and the deadline, after about the deadline")
    func untilNever() async {
        let (error, took) = await Self.failure {
            try await until("the moon to turn blue", within: .milliseconds(200)) { false }
        }
        let message = "\(error.map { "\($0)" } ?? "no error")"
        #expect(error is TestingError, "\(message)")
        #expect(message.contains("the moon to turn blue") && message.contains("0.2 seconds"), "\(message)")
        #expect(took >= .milliseconds(200), "\(took)")
    }

    @Test("until: a condition that comes true returns promptly, well before the deadline")
    func untilComes() async throws {
        let flag = Atomic<Bool>(false)
        // Staging a condition that comes true later (30 ms), what `until` is for.
        Task { try? await Task.sleep(for: .milliseconds(30)); flag.store(true, ordering: .relaxed) }
        try await until("the flag", within: .seconds(60)) { flag.load(ordering: .relaxed) }
        let set = flag.load(ordering: .relaxed)
        #expect(set)
    }

    @Test("RunnableClock: a pause longer than a step (a thread held elsewhere) counts as one step")
    func runnableClock() async throws {
        let (counted, wall) = try await DedicatedThread.run { () -> (Duration, Duration) in
            var clock = RunnableClock(step: .milliseconds(100))
            Thread.sleep(forTimeInterval: 0.5)
            clock.read()
            Thread.sleep(forTimeInterval: 0.02)
            return (clock.read(), clock.wall)
        }
        #expect(counted <= .milliseconds(200) && counted >= .milliseconds(100) + .milliseconds(20), "\(counted)")
        #expect(wall >= .milliseconds(520), "\(wall)")
    }

    @Test("blockingUntil: fails with the message past the deadline, returns when the condition holds")
    func blocking() async throws {
        let outcome = try await DedicatedThread.run { () -> (String, Duration) in
            let started = ContinuousClock.now
            do {
                try blockingUntil("a file that is never written", within: .milliseconds(150)) { false }
                return ("no error", ContinuousClock.now - started)
            } catch {
                return ("\(error)", ContinuousClock.now - started)
            }
        }
        #expect(outcome.0.contains("a file that is never written") && outcome.0.contains("0.15 seconds"), "\(outcome.0)")
        #expect(outcome.1 >= .milliseconds(150) && outcome.1 < .seconds(10), "\(outcome.1)")  // on a thread of its own
        let polls = Atomic<Int>(0)
        try await DedicatedThread.run {
            try blockingUntil("three polls", within: .seconds(60)) { polls.add(1, ordering: .relaxed).newValue >= 3 }
        }
        #expect(polls.load(ordering: .relaxed) == 3)
    }

    @Test("withDeadline: a body that ignores cancellation and never ends fails at the deadline, not never")
    func withDeadlineNeverEnds() async {
        let never = TestSignal()
        let (error, took) = await Self.failure {
            _ = try await withDeadline("a body that never ends", within: .milliseconds(200)) {
                // Suspends with no cancellation handler: only the deadline can end the wait.
                try? await never.wait(within: .seconds(3600), "nothing")
                return 1
            }
        }
        #expect("\(error.map { "\($0)" } ?? "no error")".contains("a body that never ends"))
        #expect(took >= .milliseconds(200), "\(took)")
        #expect(await finished(within: .milliseconds(100)) { try? await never.wait(within: .seconds(3600), "nothing") } == nil)
    }

    @Test("withDeadline: a body's value and error come through")
    func withDeadlineValue() async throws {
        #expect(try await withDeadline("a sum", within: .seconds(60)) { 40 + 2 } == 42)
        let (error, _) = await Self.failure {
            _ = try await withDeadline("a failing body", within: .seconds(60)) { () async throws -> Int in throw TestingError("its own error") }
        }
        #expect("\(error.map { "\($0)" } ?? "no error")" == "its own error")
        #expect(await finished(within: .seconds(60)) { "done" } == "done")
    }

    @Test("DispatchSemaphore.wait(within:): throws naming what was awaited, returns on a signal")
    func semaphore() async throws {
        let semaphore = DispatchSemaphore(value: 0)
        let message = try await DedicatedThread.run { () -> String in
            do { try semaphore.wait(within: .milliseconds(100), "the handler to start"); return "no error" } catch { return "\(error)" }
        }
        #expect(message.contains("the handler to start") && message.contains("0.1 seconds"), "\(message)")
        semaphore.signal()
        try await DedicatedThread.run { try semaphore.wait(within: .seconds(60), "a signal already given") }
    }

    @Test("NSCondition.wait(within:until:): throws past the deadline, returns once the predicate holds")
    func condition() async throws {
        let gate = Gate()
        let message = try await DedicatedThread.run { () -> String in
            do { try gate.condition.wait(within: .milliseconds(100), "the gate to open") { gate.open.withLock { $0 } }; return "no error" } catch { return "\(error)" }
        }
        #expect(message.contains("the gate to open"), "\(message)")
        let waiter = Task { try await DedicatedThread.run { try gate.condition.wait(within: .seconds(60), "the gate to open") { gate.open.withLock { $0 } } } }
        gate.raise()
        try await withDeadline("the condition's waiter to return", within: .seconds(60)) { try await waiter.value }
    }

    @Test("TestSignal: waits for a count, fails with the count reached past the deadline")
    func signal() async throws {
        let signal = TestSignal()
        let (error, took) = await Self.failure { try await signal.wait(within: .milliseconds(150), "the first request") }
        let message = "\(error.map { "\($0)" } ?? "no error")"
        #expect(message.contains("the first request") && message.contains("signalled 0 of 1 times"), "\(message)")
        #expect(took >= .milliseconds(150), "\(took)")
        let waiter = Task { try await signal.wait(reaching: 3, within: .seconds(60), "three requests") }
        for _ in 0..<3 { DispatchQueue.global().async { signal.signal() } }
        try await withDeadline("the waiter for three signals", within: .seconds(60)) { try await waiter.value }
        #expect(signal.count == 3)
        try await signal.wait(reaching: 2, within: .milliseconds(1), "a count already passed")
    }
}
