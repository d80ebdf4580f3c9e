import Foundation

/// Group commit: writers that arrive together share one transaction and one commit.
///
/// Each caller of `submit` queues a job and blocks. The first caller that finds no batch running
/// becomes its leader: it opens one transaction, runs the queued jobs (its own, those queued
/// before it, and those that arrive while it runs, up to `maxBatch`), commits once, and wakes
/// every caller of the batch. The first job of a batch runs at the top of the transaction (a body
/// that throws there rolls the transaction back and ends the batch); every later one runs in a
/// savepoint of its own, so a body that throws rolls back only what it did. A failed commit
/// fails every job of the batch. A lone writer therefore pays nothing for the grouping. A caller
/// returns only after its batch committed, so what it wrote is as durable as in a transaction
/// of its own, and a commit's fixed cost (the WAL frames of shared pages, the commit record, the
/// system calls) is paid once per batch instead of once per request.
///
/// Jobs run in the order they were queued, one at a time, on the leader's thread.
final class GroupCommit: @unchecked Sendable {
    /// One caller's work: `run(savepoint)` does its body (in a savepoint of its own when asked),
    /// keeps the body's own result, and tells whether the body succeeded.
    final class Job: @unchecked Sendable {
        let run: (_ savepoint: Bool) -> Bool
        /// Set by the leader under the group's lock.
        fileprivate var finished = false
        fileprivate var failure: (any Error)?
        init(_ run: @escaping (_ savepoint: Bool) -> Bool) { self.run = run }
    }

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var leading = false
    /// The most jobs one transaction takes; later ones wait for the next batch.
    let maxBatch: Int
    /// Batches committed and jobs run in them, for tests and metrics.
    private(set) var batches = 0
    private(set) var jobs = 0

    init(maxBatch: Int = 256) {
        precondition(maxBatch > 0, "GroupCommit: maxBatch must be positive")
        self.maxBatch = maxBatch
    }

    /// Queues `job` and returns once its batch has ended.
    ///
    /// - Parameter batch: run by the leader with a function that hands out the next job (nil when
    ///   the batch is complete); it opens the transaction, runs each job, and commits.
    /// - Throws: what `batch` threw (the commit failed, or the transaction could not begin): then
    ///   nothing of the batch was kept.
    func submit(_ job: Job, batch: (_ next: () -> Job?) throws -> Void) throws {
        condition.lock()
        queue.append(job)
        while !job.finished {
            if leading {
                condition.wait()
                continue
            }
            leading = true
            condition.unlock()
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
            for done in taken {
                done.finished = true
                done.failure = failure
            }
            batches += 1
            jobs += taken.count
            leading = false
            condition.broadcast()
        }
        condition.unlock()
        if let failure = job.failure { throw failure }
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

