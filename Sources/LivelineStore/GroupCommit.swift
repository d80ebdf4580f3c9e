import Foundation

/// Group commit: writers that arrive together share one transaction and one commit.
///
/// A caller queues a job. When no batch is running, the caller becomes its leader: it opens one
/// transaction, runs the queued jobs (its own, those queued before it, and those that arrive
/// while it runs, up to `maxBatch`), commits once, and finishes every job of the batch. The first
/// job of a batch runs at the top of the transaction (a body that throws there rolls the
/// transaction back and ends the batch); every later one runs in a savepoint of its own, so a
/// body that throws rolls back only what it did. A failed commit fails every job of the batch.
/// A lone writer therefore pays nothing for the grouping. A caller returns only after its batch
/// committed, so what it wrote is as durable as in a transaction of its own, and a commit's fixed
/// cost (the WAL frames of shared pages, the commit record, the system calls) is paid once per
/// batch instead of once per request.
///
/// Callers that find a batch running wait in one of two ways:
/// - `submit` blocks its thread until its job is done (or it becomes the next leader);
/// - `submitAsync` suspends instead, so its thread (an HTTP event loop) goes on serving other
///   requests and their writes join the next batch; the batch's leader resumes it.
/// When a batch ends with jobs still queued and no blocked caller to lead them, a serial hand-off
/// queue leads until the queue is empty, so a suspended caller never waits for a caller that is
/// not coming, and an event-loop thread never leads more than the one batch it started.
///
/// Jobs run in the order they were queued, one at a time, on the leader's thread.
final class GroupCommit: @unchecked Sendable {
    /// One caller's work: `run(savepoint)` does its body (in a savepoint of its own when asked),
    /// keeps the body's own result, and tells whether the body succeeded.
    final class Job: @unchecked Sendable {
        /// The caller's body: run once by the leader, and dropped before the job is finished,
        /// since a caller may return (and end its closure's life) as soon as it sees that.
        private var body: ((_ savepoint: Bool) -> Bool)?
        /// Set by the leader under the group's lock.
        fileprivate var finished = false
        fileprivate var failure: (any Error)?
        /// A suspended caller's continuation, resumed once the job is finished.
        fileprivate var continuation: CheckedContinuation<Void, any Error>?
        init(_ run: @escaping (_ savepoint: Bool) -> Bool) { body = run }

        /// Runs the body (in a savepoint of its own when asked) and lets go of it; false when it
        /// failed or had already run.
        func run(_ savepoint: Bool) -> Bool {
            guard let body else { return false }
            self.body = nil
            return body(savepoint)
        }

        /// Lets go of a body that never ran (its batch failed first).
        fileprivate func drop() { body = nil }
    }

    /// Runs one batch: opens the transaction, runs each job `next` hands out (nil when the
    /// batch is complete), and commits.
    typealias Batch = @Sendable (_ next: () -> Job?) throws -> Void

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var leading = false
    /// Callers blocked in `submit` (leader included): one of them leads what is left queued.
    private var blocked = 0
    private let handOff = DispatchQueue(label: "liveline.store.group-commit")
    /// The most jobs one transaction takes; later ones wait for the next batch.
    let maxBatch: Int
    /// Batches committed and jobs run in them, for tests and metrics.
    private(set) var batches = 0
    private(set) var jobs = 0

    init(maxBatch: Int = 256) {
        precondition(maxBatch > 0, "GroupCommit: maxBatch must be positive")
        self.maxBatch = maxBatch
    }

    /// Queues `job` and returns once its batch has ended, blocking the calling thread meanwhile.
    ///
    /// - Throws: what `batch` threw (the commit failed, or the transaction could not begin): then
    ///   nothing of the batch was kept.
    func submit(_ job: Job, batch: @escaping Batch) throws {
        condition.lock()
        queue.append(job)
        blocked += 1
        while !job.finished {
            if leading {
                condition.wait()
                continue
            }
            leading = true
            condition.unlock()
            runBatch(batch)
            condition.lock()
            leading = false
            condition.broadcast()
        }
        blocked -= 1
        let handingOff = !leading && blocked == 0 && !queue.isEmpty
        if handingOff { leading = true }
        condition.unlock()
        if handingOff { handOff.async { self.leadUntilEmpty(batch) } }
        if let failure = job.failure { throw failure }
    }

    /// Queues `job` and returns once its batch has ended. With no batch running, the caller
    /// leads one batch on its own thread without suspending; otherwise it suspends until the
    /// running batch's leader (or the one after it) has finished its job.
    func submitAsync(_ job: Job, batch: @escaping Batch) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            condition.lock()
            job.continuation = continuation
            queue.append(job)
            let leads = !leading
            if leads { leading = true }
            condition.unlock()
            if leads { leadOnce(batch) }
        }
    }

    /// Leads one batch, then lets a blocked caller or the hand-off queue lead what is left.
    private func leadOnce(_ batch: @escaping Batch) {
        runBatch(batch)
        condition.lock()
        let handingOff = blocked == 0 && !queue.isEmpty
        if !handingOff { leading = false }
        condition.broadcast()
        condition.unlock()
        if handingOff { handOff.async { self.leadUntilEmpty(batch) } }
    }

    /// The hand-off queue's part: batches until nothing is queued or a blocked caller can lead.
    private func leadUntilEmpty(_ batch: @escaping Batch) {
        while true {
            runBatch(batch)
            condition.lock()
            if queue.isEmpty || blocked > 0 {
                leading = false
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
        }
    }

    /// One transaction over the queued jobs; marks each taken job finished (with the batch's
    /// failure, if any) and resumes the suspended ones. The caller holds the leadership.
    private func runBatch(_ batch: Batch) {
        var taken: [Job] = []
        var failure: (any Error)?
        do {
            try batch {
                condition.lock()
                defer { condition.unlock() }
                guard taken.count < maxBatch, !queue.isEmpty else { return nil }
                let next = queue.removeFirst()
                taken.append(next)
                return next
            }
        } catch {
            failure = error
        }
        condition.lock()
        if failure != nil && taken.isEmpty {
            // The batch failed before it took a job (the transaction could not begin): every
            // queued job would meet the same failure, and waiting on would spin.
            taken = queue
            queue.removeAll()
        }
        var resumes: [CheckedContinuation<Void, any Error>] = []
        for done in taken {
            done.drop()
            done.finished = true
            done.failure = failure
            if let continuation = done.continuation {
                resumes.append(continuation)
                done.continuation = nil
            }
        }
        batches += 1
        jobs += taken.count
        condition.unlock()
        for continuation in resumes {
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
        }
    }

    /// Jobs queued and not yet taken by a leader.
    var pending: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// Batches and jobs so far, read under the lock.
    var counts: (batches: Int, jobs: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (batches, jobs)
    }
}
