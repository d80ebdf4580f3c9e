import Foundation
@testable import LivelineStore
import LivelineTesting
import Testing

/// Writers that arrive together share a transaction; each keeps its own result and its own rollback.
@Suite("Group commit (SQLite)")
struct GroupCommitTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func makeStore() throws -> (SQLiteStore, String) {
        let dir = NSTemporaryDirectory() + "liveline-group-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (try SQLiteStore(path: dir + "/test.db"), dir)
    }

    static func key(_ n: String) -> APIKeyRecord { APIKeyRecord(id: "key_\(n)", scope: .app, hash: "hash-\(n)", name: n, createdAt: t0) }

    struct Refused: Error, Equatable { var n: String }

    /// A flag one thread raises and others wait for, with a deadline.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private let what: String
        init(_ what: String) { self.what = what }
        func raise() { condition.lock(); open = true; condition.broadcast(); condition.unlock() }
        /// Blocks the calling thread (a writer's own) until raised. The bound is long: it only ends
        /// a holder that a failed test abandoned (the test's own waits count runnable time, and a
        /// wall-clock bound as short as theirs expired while the test sat behind blocked threads).
        func waitRaised() throws { try condition.wait(within: .seconds(300), what) { open } }
        /// Suspends the calling task until raised.
        func opened() async throws {
            try await until(what) { isOpen() }
        }
        private func isOpen() -> Bool { condition.lock(); defer { condition.unlock() }; return open }
    }

    /// Writers finished so far.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    /// Runs `body` on a thread of its own; `outcome()` (blocking) and `value()` (suspending) return
    /// its result, or throw when it has none within the wait's deadline.
    final class Writer<T: Sendable>: @unchecked Sendable {
        private let done = NSCondition()
        private var result: Result<T, any Error>?
        init(_ body: @escaping @Sendable () throws -> T) {
            Thread.detachNewThread { [self] in
                let r = Result { try body() }
                done.lock(); result = r; done.broadcast(); done.unlock()
            }
        }
        private var finished: Result<T, any Error>? { done.lock(); defer { done.unlock() }; return result }
        func outcome() throws -> Result<T, any Error> {
            try done.wait(within: .seconds(60), "a writer thread to finish") { result != nil }
            return finished!
        }
        func value() async throws -> T {
            try await until("a writer thread to finish", within: .seconds(60)) { finished != nil }
            return try finished!.get()
        }
    }

    /// Waits (bounded) until `condition` holds: the writers make it true by queueing.
    func waitUntil(_ condition: () -> Bool) throws {
        try blockingUntil("the writers to queue", poll: .milliseconds(1), condition)
    }

    /// A first writer that holds its transaction open until `release` is raised; `inside` tells it began.
    func holdingWriter(_ store: SQLiteStore, inside: Gate, release: Gate) -> Writer<String> {
        Writer { [store] in
            try store.write { tx -> String in
                try tx.insertKey(Self.key("a"))
                inside.raise()
                try release.waitRaised()
                return "a"
            }
        }
    }

    @Test("writers queued behind a running transaction commit with it, each with its own result")
    func writersShareOneCommit() throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let inside = Gate("the first writer to begin its transaction"), release = Gate("the test to release the first writer")
        let before = store.groupCommitCounts
        let first = holdingWriter(store, inside: inside, release: release)
        try inside.waitRaised()
        let others = ["b", "c"].map { n in Writer { [store] in try store.write { tx -> String in try tx.insertKey(Self.key(n)); return n } } }
        try waitUntil { store.groupCommitPending == 2 }
        release.raise()
        #expect(try first.outcome().get() == "a")
        #expect(try others.map { try $0.outcome().get() } == ["b", "c"])
        let after = store.groupCommitCounts
        #expect(after.batches - before.batches == 1, "the three writers committed together")
        #expect(after.transactions - before.transactions == 3)
        #expect(try store.write { try $0.keyCount() } == 3)
    }

    @Test("a writer that throws rolls back only its own work; the others of its batch commit")
    func throwingWriterRollsBackAlone() throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let inside = Gate("the first writer to begin its transaction"), release = Gate("the test to release the first writer")
        let first = holdingWriter(store, inside: inside, release: release)
        try inside.waitRaised()
        let failing = Writer { [store] in
            try store.write { tx -> String in
                try tx.insertKey(Self.key("b"))
                throw Refused(n: "b")
            }
        }
        try waitUntil { store.groupCommitPending == 1 }
        let last = Writer { [store] in try store.write { tx -> String in try tx.insertKey(Self.key("c")); return "c" } }
        try waitUntil { store.groupCommitPending == 2 }
        release.raise()
        #expect(try first.outcome().get() == "a")
        #expect(throws: Refused(n: "b")) { try failing.outcome().get() }
        #expect(try last.outcome().get() == "c")
        let kept = try store.write { tx in try ["a", "b", "c"].filter { try tx.key(hash: "hash-\($0)") != nil } }
        #expect(kept == ["a", "c"])
    }

    @Test("many concurrent writers: every write is kept and counted once")
    func concurrentWriters() throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let before = store.groupCommitCounts
        let writers = (0..<8).map { w in
            Writer { [store] in
                for i in 0..<100 { try store.write { tx in try tx.insertKey(Self.key("\(w)-\(i)")) } }
                return w
            }
        }
        #expect(try writers.map { try $0.outcome().get() } == Array(0..<8))
        #expect(try store.write { try $0.keyCount() } == 800)
        let after = store.groupCommitCounts
        #expect(after.transactions - before.transactions == 801)
    }

    /// `waitUntil` for async tests: polls without blocking a thread of the concurrency pool.
    func waitUntilAsync(_ what: String = "the writers to queue", _ condition: () -> Bool) async throws {
        try await until(what, poll: .milliseconds(1), condition)
    }

    @Test("async writers behind a running transaction suspend (no thread blocked) and commit with it")
    func asyncWritersShareOneCommit() async throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let inside = Gate("the first writer to begin its transaction"), release = Gate("the test to release the first writer")
        let before = store.groupCommitCounts
        let first = holdingWriter(store, inside: inside, release: release)
        try await inside.opened()
        let others = ["b", "c", "d"].map { n in Task { try await store.writeAsync { tx -> String in try tx.insertKey(Self.key(n)); return n } } }
        try await waitUntilAsync { store.groupCommitPending == 3 }
        release.raise()
        #expect(try await first.value() == "a")
        var results: [String] = []
        for task in others { results.append(try await task.value) }
        #expect(results == ["b", "c", "d"])
        let after = store.groupCommitCounts
        #expect(after.batches - before.batches == 1, "the four writers committed together")
        #expect(after.transactions - before.transactions == 4)
        #expect(try store.write { try $0.keyCount() } == 4)
    }

    @Test("async writers left queued past a batch's limit, with no blocked writer to lead them, are led by the hand-off queue")
    func leftoverAsyncWritersAreLed() async throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let inside = Gate("the first writer to begin its transaction"), release = Gate("the test to release the first writer")
        let before = store.groupCommitCounts
        let first = holdingWriter(store, inside: inside, release: release)
        try await inside.opened()
        // 300 queued: the first batch takes the holder and 255 of them; 45 remain after it.
        let count = 300
        let done = Counter()
        for n in 0..<count {
            Task {
                try await store.writeAsync { tx in try tx.insertKey(Self.key("q\(n)")) }
                done.add()
            }
        }
        try await waitUntilAsync { store.groupCommitPending == count }
        release.raise()
        _ = try await first.value()
        // Bounded: a writer nobody leads would wait forever, and this fails instead of hanging.
        try await waitUntilAsync("every queued writer to end") { done.value == count }
        let after = store.groupCommitCounts
        #expect(after.transactions - before.transactions == count + 1)
        #expect(after.batches - before.batches >= 2, "a batch takes at most 256")
        #expect(try store.write { try $0.keyCount() } == count + 1)
    }

    @Test("an async writer that throws rolls back only its own work; the others of its batch commit")
    func throwingAsyncWriterRollsBackAlone() async throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let inside = Gate("the first writer to begin its transaction"), release = Gate("the test to release the first writer")
        let first = holdingWriter(store, inside: inside, release: release)
        try await inside.opened()
        let failing = Task { try await store.writeAsync { tx -> String in try tx.insertKey(Self.key("b")); throw Refused(n: "b") } }
        try await waitUntilAsync { store.groupCommitPending == 1 }
        let last = Task { try await store.writeAsync { tx -> String in try tx.insertKey(Self.key("c")); return "c" } }
        try await waitUntilAsync { store.groupCommitPending == 2 }
        release.raise()
        #expect(try await first.value() == "a")
        await #expect(throws: Refused(n: "b")) { try await failing.value }
        #expect(try await last.value == "c")
        let kept = try store.write { tx in try ["a", "b", "c"].filter { try tx.key(hash: "hash-\($0)") != nil } }
        #expect(kept == ["a", "c"])
    }

    /// Runs `blocking` threads and `async` tasks at once, each making `each` writes of a new key
    /// (blocking `write`s and `writeAsync`s); returns the blocking writers' numbers once all ended.
    func writeAtOnce(_ store: SQLiteStore, blocking: Int, async: Int, each: Int) async throws -> [Int] {
        let writers = (0..<blocking).map { w in
            Writer { [store] in
                for i in 0..<each { try store.write { tx in try tx.insertKey(Self.key("s\(w)-\(i)")) } }
                return w
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<async {
                group.addTask { for i in 0..<each { try await store.writeAsync { tx in try tx.insertKey(Self.key("a\(w)-\(i)")) } } }
            }
            try await group.waitForAll()
        }
        var numbers: [Int] = []
        for writer in writers { numbers.append(try await writer.value()) }
        return numbers
    }

    @Test("async and blocking writers at once: every write is kept and counted once")
    func mixedWriters() async throws {
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        let before = store.groupCommitCounts
        #expect(try await writeAtOnce(store, blocking: 3, async: 8, each: 100) == [0, 1, 2])
        #expect(try store.write { try $0.keyCount() } == 1100)
        let after = store.groupCommitCounts
        #expect(after.transactions - before.transactions == 1101)
    }

    @Test("blocking writers whose jobs another leader ran return safely: the leader lets go of each body before finishing it")
    func blockingWritersUnderOtherLeaders() async throws {
        // `write` takes a non-escaping body: if a leader still held it once the writer returned,
        // the runtime would stop the process ("non-escaping closure has escaped").
        let (store, dir) = try makeStore()
        defer { store.close(); try? FileManager.default.removeItem(atPath: dir) }
        #expect(try await writeAtOnce(store, blocking: 2, async: 4, each: 1500) == [0, 1])
        #expect(try store.write { try $0.keyCount() } == 9000)
    }

    @Test("a closed store fails every queued writer with an unavailable error")
    func closedStoreFails() async throws {
        let (store, dir) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        store.close()
        #expect { try store.write { try $0.keyCount() } } throws: { ($0 as? StoreError)?.isUnavailable == true }
        await #expect { try await store.writeAsync { try $0.keyCount() } } throws: { ($0 as? StoreError)?.isUnavailable == true }
    }
}

