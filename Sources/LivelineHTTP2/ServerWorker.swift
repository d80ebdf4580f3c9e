import CEpoll
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One serial worker thread of an `HTTP2Server` running with `HTTP2ServerExecution.workers`:
/// it calls the handler for the batches of requests the loop hands it, in order.
///
/// Thread confinement: `queue` and `stopping` are guarded by `condition` (the loop thread adds,
/// the worker takes); `outbox` and `inBatch` belong to the worker thread (`post` checks the
/// caller is that thread before touching them). That is what makes `@unchecked Sendable` sound.
final class ServerWorker: @unchecked Sendable {
    /// A request and the responder that answers it.
    typealias Job = (request: HTTP2ServerRequest, responder: HTTP2ServerResponder)

    private let loop: EventLoop
    private let handler: HTTP2Server.Handler
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var stopping = false
    private let threadID = Atomic<UInt>(0)
    private var outbox: [@Sendable () -> Void] = []
    private var inBatch = false
    private let running = DispatchGroup()

    init(loop: EventLoop, handler: @escaping HTTP2Server.Handler) {
        self.loop = loop
        self.handler = handler
    }

    /// Starts the thread (`name`, `stackSize` bytes of stack).
    func start(name: String, stackSize: Int) {
        running.enter()
        let thread = Thread { [self] in
            threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
            _ = liveline_set_thread_name(String(name.prefix(15)))
            run()
            threadID.store(0, ordering: .releasing)
            running.leave()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Queues `jobs` (one wake-up for all of them). Jobs handed over after `stop()` are dropped:
    /// the server is closing their connections.
    func submit(_ jobs: [Job]) {
        condition.lock()
        let accepted = !stopping
        if accepted {
            queue.append(contentsOf: jobs)
            condition.signal()
        }
        condition.unlock()
    }

    /// Lets the thread finish the jobs already queued, then end. Callable from any thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until the thread has ended (after `stop()`).
    func waitUntilEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            running.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Whether the caller runs on this worker's thread.
    var isCurrent: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Queues `work` for the loop with the rest of the current batch's answers when called on
    /// this worker's thread during a batch; returns false (nothing done) otherwise.
    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard isCurrent, inBatch else { return false }
        outbox.append(work)
        return true
    }

    private func run() {
        var batch: [Job] = []
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            swap(&batch, &queue)
            let done = stopping && batch.isEmpty
            condition.unlock()
            if done { return }
            inBatch = true
            for (index, job) in batch.enumerated() {
                handler(job.request, job.responder)
                if index % Self.handOffSize == Self.handOffSize - 1 { handOffAnswers() }
            }
            inBatch = false
            batch.removeAll(keepingCapacity: true)
            handOffAnswers()
        }
    }

    /// How many requests go to a worker in one hand-off, and how many answers come back in one.
    /// Small enough that the three parties overlap (the worker validates the first requests
    /// while the loop decodes the rest of a long read, and the loop writes the first answers
    /// while the worker validates the rest, so the client sends new requests sooner), large
    /// enough that one wake-up serves many. 16 took `liveline bench simulator` from about 0.8x
    /// to 1.1x nginx, where handing over whole loop iterations left a core idle a fifth of the time.
    static let handOffSize = 16

    /// Sends the answers queued so far to the loop, one `execute` for all of them.
    private func handOffAnswers() {
        guard !outbox.isEmpty else { return }
        let answers = outbox
        outbox.removeAll(keepingCapacity: true)
        loop.execute {
            for answer in answers { answer() }
        }
    }
}
