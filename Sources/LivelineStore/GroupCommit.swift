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

    /// Commit delay: while writers overlap (the last batch carried more than one) and arrive
    /// faster than one every `commitDelay / 2` (a moving average of the gaps between them), the
    /// leader waits up to `commitDelay` from the start of its batch for more before it commits, so
    /// the batch, not each writer, pays for the commit. A writer alone, or one writing in a loop,
    /// never waits: its batches carry one job. Zero turns it off.
    let commitDelay: Duration
    /// The leader waits here for the next writer; `arrivals` (under `condition`) tells it came.
    private let arrival = NSCondition()
    private var arrivals: UInt64 = 0
    private var leaderWaiting = false
    private var lastArrival = ContinuousClock.now
    /// Moving average of the gaps between writers, in seconds.
    private var meanGap = 1.0
    /// Whether the last batch carried more than one job.
    private var overlapping = false
    private var delays = 0

    init(maxBatch: Int = 256, commitDelay: Duration = .zero) {
        precondition(maxBatch > 0, "GroupCommit: maxBatch must be positive")
        self.maxBatch = maxBatch
        self.commitDelay = commitDelay
    }

    /// Queues `job` and returns once its batch has ended.
    ///
    /// - Parameter batch: run by the leader with a function that hands out the next job (nil when
    ///   the batch is complete); it opens the transaction, runs each job, and commits.
    /// - Throws: what `batch` threw (the commit failed, or the transaction could not begin): then
    ///   nothing of the batch was kept.
    func submit(_ job: Job, batch: (_ next: () -> Job?) throws -> Void) throws {
        let now = ContinuousClock.now
        condition.lock()
        queue.append(job)
        meanGap = 0.875 * meanGap + 0.125 * min(1, (now - lastArrival).seconds)
        lastArrival = now
        arrivals &+= 1
        if leaderWaiting {
            condition.unlock()
            arrival.lock()
            arrival.signal()
            arrival.unlock()
            condition.lock()
        }
        while !job.finished {
            if leading {
                condition.wait()
                continue
            }
            leading = true
            condition.unlock()
            var taken: [Job] = []
            var failure: (any Error)?
            let deadline = ContinuousClock.now + commitDelay
            do {
                try batch {
                    condition.lock()
                    defer { condition.unlock() }
                    guard taken.count < maxBatch else { return nil }
                    if queue.isEmpty {
                        guard commitDelay > .zero, overlapping, meanGap < commitDelay.seconds / 2, ContinuousClock.now < deadline else { return nil }
                        waitForArrival(until: deadline)
                        guard !queue.isEmpty else { return nil }
                    }
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
            overlapping = taken.count > 1
            leading = false
            condition.broadcast()
        }
        condition.unlock()
        if let failure = job.failure { throw failure }
    }

    /// The leader, holding `condition`, waits until a writer arrives or `deadline`; returns holding it.
    private func waitForArrival(until deadline: ContinuousClock.Instant) {
        let seen = arrivals
        leaderWaiting = true
        condition.unlock()
        let wallDeadline = Date().addingTimeInterval((deadline - ContinuousClock.now).seconds)
        arrival.lock()
        while true {
            condition.lock()
            let arrived = arrivals != seen
            condition.unlock()
            if arrived || !arrival.wait(until: wallDeadline) { break }
        }
        arrival.unlock()
        condition.lock()
        leaderWaiting = false
        delays += 1
    }

    /// Whether a leader is waiting for more writers now (for tests).
    var isLeaderWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return leaderWaiting
    }

    /// How often a leader waited for more writers (for tests).
    var delayCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return delays
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

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
