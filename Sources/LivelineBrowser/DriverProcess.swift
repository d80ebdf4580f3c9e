import Foundation
import LivelineProcess
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// chromedriver and the Chromium it starts, as one process group that dies with this process.
///
/// A small `/bin/sh` leads the group: it starts chromedriver in the background (same group,
/// no job control in a script), then reads its standard input, a pipe whose write end only this
/// process holds. When the pipe reads end-of-file (this process stopped it, or died however it
/// died), the shell kills the whole group: chromedriver and every Chromium process. chromedriver's
/// output (and a line when it exits) comes back on a pipe, read by a thread of its own.
final class DriverProcess: Sendable {
    /// The process ID of the group's leader, also the group's ID.
    let groupID: pid_t
    private let state = Mutex<State>(State())

    private struct State {
        var output = ""
        var closed = false
        /// The write end of the leader's standard input; closing it kills the group.
        var guardPipe: Int32?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Whether the leader has been reaped (its output closed first: the whole group is gone).
        var reaped = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the leader prints when chromedriver exits: the reader fails a waiter on it.
    static let exitMarker = "liveline: chromedriver exited with status "

    private static let script = #"""
        ( "$0" "$@"; status=$?; echo; echo "liveline: chromedriver exited with status $status" ) </dev/null &
        read _ignored
        kill -KILL 0
        """#

    /// Starts `chromedriver` with `arguments` (its output merged into one pipe).
    static func start(_ chromedriver: String, _ arguments: [String]) throws(BrowserError) -> DriverProcess {
        // Close-on-exec from the start, so no child started meanwhile on another thread inherits an
        // end (the spawn dup2s them onto 0, 1 and 2 for this child only).
        let input: (read: Int32, write: Int32), output: (read: Int32, write: Int32)
        do { input = try Spawn.pipe() } catch { throw BrowserError("cannot start \(chromedriver): \(error)") }
        do { output = try Spawn.pipe() } catch {
            close(input.read); close(input.write)
            throw BrowserError("cannot start \(chromedriver): \(error)")
        }
        defer { close(input.read); close(output.write) }
        // A group of its own, so one kill reaches every Chromium process.
        let pid: pid_t
        do {
            pid = try Spawn.start("/bin/sh", ["-c", script, chromedriver] + arguments,
                                  descriptors: [(input.read, 0), (output.write, 1), (output.write, 2)], newProcessGroup: true)
        } catch {
            close(input.write); close(output.read)
            throw BrowserError("cannot start \(chromedriver) (through /bin/sh): \(error)")
        }
        let process = DriverProcess(groupID: pid, guardPipe: input.write)
        process.startReader(output.read)
        return process
    }

    private init(groupID: pid_t, guardPipe: Int32) {
        self.groupID = groupID
        state.withLock { $0.guardPipe = guardPipe }
    }

    deinit {
        stop()
    }

    private func startReader(_ fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    if count > 0 { state.output += String(decoding: buffer[0..<count], as: UTF8.self) } else { state.closed = true }
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
                if count <= 0 { break }
            }
            close(fd)
            var status: Int32 = 0
            while waitpid(groupID, &status, 0) == -1 && errno == EINTR {}
            let exitWaiters = state.withLock { state in
                state.reaped = true
                defer { state.exitWaiters.removeAll() }
                return state.exitWaiters
            }
            for waiter in exitWaiters { waiter.resume() }
        }
        thread.name = "chromedriver output"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Everything chromedriver printed so far.
    var output: String { state.withLock { $0.output } }

    /// Waits until `match` finds something in the output (checked on every new chunk) and returns it;
    /// nil when chromedriver exited or closed its output first, or `timeout` passed.
    func waitForOutput<T: Sendable>(timeout: Duration, _ match: @escaping @Sendable (String) -> T?) async -> T? {
        let deadline = ContinuousClock.now + timeout
        let timer = Task { [self] in
            try await Task.sleep(until: deadline)
            wakeWaiters()
        }
        defer { timer.cancel() }
        while true {
            let (found, finished) = state.withLock { state in
                (match(state.output), state.closed || state.output.contains(Self.exitMarker))
            }
            if let found { return found }
            if finished || ContinuousClock.now >= deadline { return nil }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    // Output that came since the check above wakes nobody later: look again under the lock.
                    if state.closed || state.output.contains(Self.exitMarker) || match(state.output) != nil || ContinuousClock.now >= deadline { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func wakeWaiters() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until every process that held chromedriver's output has closed it and the leader is reaped.
    func waitUntilExited() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if !state.reaped { state.exitWaiters.append(continuation) }
                return state.reaped
            }
            if done { continuation.resume() }
        }
    }

    /// Kills the group: chromedriver and every Chromium process it started. Idempotent.
    func stop() {
        guard let fd = takeGuardPipe() else { return }
        kill(-groupID, SIGKILL)
        close(fd)
    }

    /// Closes the guard pipe only, as this process's death would: the group's leader then kills the
    /// group itself. (For tests.)
    func releaseGuardPipe() {
        if let fd = takeGuardPipe() { close(fd) }
    }

    private func takeGuardPipe() -> Int32? {
        state.withLock { state -> Int32? in
            defer { state.guardPipe = nil }
            return state.guardPipe
        }
    }
}
