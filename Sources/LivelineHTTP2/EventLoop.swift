import CEpoll
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Something registered with an `EventLoop` for readiness events on a file descriptor.
/// Called only on the loop thread.
protocol EventLoopHandler: AnyObject {
    /// Handles `events` (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, `EPOLLHUP` bits) for its descriptor.
    func handleEvents(_ events: UInt32)
}

/// Something that wants one call at the end of the current loop iteration (write batching).
protocol EventLoopFlushable: AnyObject {
    /// Writes what was produced during the iteration.
    func flushAtEndOfIteration()
    /// Whether it is queued for this iteration's flush; kept by the loop (loop thread only), so
    /// asking twice costs a flag test rather than a set lookup.
    var isFlushQueued: Bool { get set }
}

/// One thread running `epoll_wait`, with an eventfd to wake it, a timer heap and a queue of work
/// submitted from other threads.
///
/// Thread confinement: every descriptor handler, timer and flush callback runs on the loop
/// thread, and `register`/`modify`/`unregister`/`schedule`/`cancelTimer`/`flushSoon` may only be
/// called there. Other threads reach the loop only through `execute(_:)`, whose queue is guarded by
/// a `Mutex`; that is what makes the `@unchecked Sendable` below sound. Once the thread has
/// exited (after `stop()`), `execute` runs work on the caller's thread under one recursive lock,
/// so confined objects still have one user at a time and nobody waits for a dead thread.
final class EventLoop: @unchecked Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<Inbox>(Inbox())
    private let threadID = Atomic<UInt>(0)
    private let stopped = Atomic<Bool>(false)
    private let afterStopLock = NSRecursiveLock()

    private struct Inbox {
        var work: [@Sendable () -> Void] = []
        var wakePending = false
        /// The thread has exited; work runs on the caller's thread from now on.
        var finished = false
    }

    // Loop-thread state (one thread: no run-time exclusivity checks needed).
    @exclusivity(unchecked) private var handlers: [Int32: EventLoopHandler] = [:]
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var flushQueue: [EventLoopFlushable] = []
    @exclusivity(unchecked) private var flushing: [EventLoopFlushable] = []
    private let name: String

    /// Makes a loop and, unless `startsThread` is false, starts its thread (named `name`).
    ///
    /// Until `start()`, the creating thread is the loop's only user and may call the loop-thread
    /// API itself (to register a listening socket before any event can arrive); the thread's
    /// start orders those calls before everything the thread does.
    init(name: String, startsThread: Bool = true) throws(HTTP2Error) {
        self.name = name
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else { throw HTTP2Error(.internalError, "epoll_create1 failed: \(errnoString())") }
        let ev = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard ev >= 0 else {
            close(ep)
            throw HTTP2Error(.internalError, "eventfd failed: \(errnoString())")
        }
        epollFD = ep
        wakeFD = ev
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = ev
        _ = epoll_ctl(ep, EPOLL_CTL_ADD, ev, &event)
        if startsThread { start() }
    }

    /// Starts the loop thread (once; `init` does it unless told not to). Nobody waits for it:
    /// work sent with `execute` before it runs waits in the inbox, and `inLoop` is false on every
    /// other thread either way.
    func start() {
        let name = self.name
        let thread = Thread { [self] in
            // TLS writes to a peer that has gone (close_notify after a reset) must fail with
            // EPIPE, not raise SIGPIPE, whose default action ends the whole process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
            _ = liveline_set_thread_name(String(name.prefix(15)))
            run()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Runs `work` on the loop thread soon (in submission order). Callable from any thread.
    /// After the loop has stopped, runs `work` at once on the caller's thread: the loop thread
    /// is gone, so the objects it confined have no other user, and nobody waits forever.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let (wake, runHere) = inbox.withLock { inbox -> (Bool, Bool) in
            if inbox.finished { return (false, true) }
            inbox.work.append(work)
            if inbox.wakePending { return (false, false) }
            inbox.wakePending = true
            return (true, false)
        }
        if runHere {
            // The loop thread is gone; one lock keeps late callers from running at once.
            afterStopLock.lock()
            Self.withSIGPIPEBlocked(work)
            afterStopLock.unlock()
            return
        }
        if wake && !inLoop { wakeUp() }
    }

    /// Runs `work` on the calling thread with SIGPIPE blocked (a write to a closed socket then
    /// fails with EPIPE), discards a SIGPIPE it raised, and restores the thread's signal mask.
    static func withSIGPIPEBlocked(_ work: () -> Void) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        work()
        if sigismember(&previous, SIGPIPE) == 0 {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var immediately = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &immediately)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
    }

    /// Stops the loop thread after the work already queued. Callable from any thread.
    func stop() {
        execute { [self] in stopped.store(true, ordering: .relaxed) }
    }

    private func wakeUp() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: Loop-thread API

    /// Registers `fd` for `events` with level-triggered epoll. Loop thread only.
    func register(_ fd: Int32, events: UInt32, handler: EventLoopHandler) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        handlers[fd] = handler
        return true
    }

    /// Changes the events `fd` is registered for. Loop thread only.
    func modify(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Removes `fd` (call before closing it). Loop thread only.
    func unregister(_ fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    /// Runs `work` after `delay` on the loop thread, unless cancelled. Loop thread only.
    @discardableResult
    func schedule(after delay: Duration, _ work: @escaping () -> Void) -> UInt64 {
        timers.add(deadline: Self.now() &+ delay.nanoseconds, work)
    }

    /// Cancels a timer from `schedule`. Loop thread only.
    func cancelTimer(_ id: UInt64) {
        timers.cancel(id)
    }

    /// Calls `target.flushAtEndOfIteration()` once at the end of this iteration. Loop thread only.
    func flushSoon(_ target: EventLoopFlushable) {
        if !target.isFlushQueued {
            target.isFlushQueued = true
            flushQueue.append(target)
        }
    }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    // MARK: Loop

    private func run() {
        let capacity = 128
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while !stopped.load(ordering: .relaxed) {
            var timeout: Int32 = -1
            let hasWork = inbox.withLock { !$0.work.isEmpty }
            if hasWork || !flushQueue.isEmpty {
                timeout = 0
            } else if let next = timers.nextDeadline {
                let now = Self.now()
                timeout = next <= now ? 0 : Int32(min((next - now + 999_999) / 1_000_000, 60_000))
            }
            let count = epoll_wait(epollFD, events, Int32(capacity), timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    let fd = event.data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    handlers[fd]?.handleEvents(event.events)
                }
            }
            runDueTimers()
            runQueuedWork()
            runFlushes()
        }
        // Drain what is left so nobody waits forever on work sent before stop(); work sent
        // later runs on its sender's thread (see `execute`).
        while true {
            let work = inbox.withLock { inbox -> [@Sendable () -> Void] in
                let work = inbox.work
                inbox.work.removeAll()
                return work
            }
            if work.isEmpty {
                // Let go of sessions still referenced by timers or handlers (they reference
                // the loop), then hand over to inline execution.
                timers = TimerHeap()
                handlers.removeAll()
                for target in flushQueue { target.isFlushQueued = false }
                flushQueue.removeAll()
                let done = inbox.withLock { inbox -> Bool in
                    if !inbox.work.isEmpty { return false }
                    inbox.finished = true
                    return true
                }
                if done { break }
                continue
            }
            for item in work { item() }
            runFlushes()
        }
        threadID.store(0, ordering: .releasing)
    }

    private func runDueTimers() {
        guard timers.nextDeadline != nil else { return }
        let now = Self.now()
        while let work = timers.popDue(now: now) {
            work()
        }
    }

    private func runQueuedWork() {
        let work = inbox.withLock { inbox -> [@Sendable () -> Void] in
            inbox.wakePending = false
            let work = inbox.work
            inbox.work.removeAll(keepingCapacity: true)
            return work
        }
        for item in work { item() }
    }

    private func runFlushes() {
        while !flushQueue.isEmpty {
            // Swap with the spare so neither array reallocates: targets queued while flushing
            // go to the (empty) other one and run in the next round.
            swap(&flushQueue, &flushing)
            for target in flushing {
                target.isFlushQueued = false
                target.flushAtEndOfIteration()
            }
            flushing.removeAll(keepingCapacity: true)
        }
    }
}
