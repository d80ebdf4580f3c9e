import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `Spawn` (the one `posix_spawn`), reaped by a dedicated waiter thread.
///
/// Why not `Foundation.Process`: a process spawned from a Swift-concurrency (dispatch worker)
/// thread inherits that thread's signal mask, in which SIGTERM, SIGINT and SIGHUP are blocked, so
/// the child ignores `terminate()`; and `Process` leaves its pipes and its exit-detection socket
/// inheritable, so a child started concurrently on another thread can hold them open (a reader
/// then waits for an unrelated server to exit). Here the child gets an empty signal mask and
/// default dispositions, and inherits only descriptors 0, 1 and 2, and 3: the parent watch (a
/// pipe that reads end-of-file once this process is gone; see `ParentWatch`).
package final class ChildProcess: Sendable {
    /// The process ID.
    package let pid: pid_t
    /// The program's file name, for messages.
    package let name: String
    private let state = Mutex<State>(State())

    private struct State {
        var status: Int32?
        var waiters: [@Sendable (Int32) -> Void] = []
        /// The write end of the child's parent-watch pipe, open while the child runs.
        var watch: Int32?
    }

    /// The environment variable naming the descriptor on which a child reads end-of-file when
    /// its parent is gone (`ParentWatch` in the child acts on it).
    package static let parentWatchVariable = "LIVELINE_PARENT_FD"
    /// The descriptor number the child finds it on.
    package static let parentWatchDescriptor: Int32 = 3

    private init(pid: pid_t, name: String, watch: Int32) {
        self.pid = pid
        self.name = name
        state.withLock { $0.watch = watch }
    }

    /// Closes this process's end of the parent-watch pipe, as this process's death would: a
    /// Liveline child then stops as on SIGTERM. (For tests; the waiter closes it after the exit.)
    package func releaseParentWatch() {
        let fd = state.withLock { s -> Int32? in
            defer { s.watch = nil }
            return s.watch
        }
        if let fd { close(fd) }
    }

    /// Starts `executable` with `arguments`, its standard streams on the given descriptors.
    /// - Throws: `ProcessError` naming the program when it cannot be started.
    package static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: URL? = nil,
        newProcessGroup: Bool = false,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws(ProcessError) -> ChildProcess {
        // The parent watch: the child gets the read end as descriptor 3; this process keeps the
        // write end (close-on-exec, so no other child inherits it) until the child is reaped. When
        // this process dies, however it dies, the kernel closes it and the child reads end-of-file.
        let watch: (read: Int32, write: Int32)
        do { watch = try Spawn.pipe() } catch { throw ProcessError("cannot run \(executable): \(error)") }
        defer { close(watch.read) }
        var variables = environment ?? ProcessInfo.processInfo.environment
        variables[parentWatchVariable] = String(parentWatchDescriptor)
        let pid: pid_t
        do {
            pid = try Spawn.start(executable, arguments, environment: variables, directory: directory,
                                  descriptors: [(stdin, 0), (stdout, 1), (stderr, 2), (watch.read, parentWatchDescriptor)],
                                  newProcessGroup: newProcessGroup)
        } catch {
            close(watch.write)
            throw error
        }
        let child = ChildProcess(pid: pid, name: URL(fileURLWithPath: executable).lastPathComponent, watch: watch.write)
        child.startWaiter()
        return child
    }

    private func startWaiter() {
        let thread = Thread { [self] in
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &raw, 0) } while result == -1 && errno == EINTR
            // Exit code, or 128 + signal number as shells report a killed program; -1 when
            // something else in this process reaped it (the status is lost then).
            let status = result != pid ? -1 : raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            let (waiters, watch) = state.withLock { state -> ([@Sendable (Int32) -> Void], Int32?) in
                state.status = status
                defer { state.waiters.removeAll(); state.watch = nil }
                return (state.waiters, state.watch)
            }
            if let watch { close(watch) }
            for waiter in waiters { waiter(status) }
        }
        thread.name = "wait \(name)"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// The exit status once reaped: the exit code, or 128 + the signal that killed it.
    package var exitStatus: Int32? { state.withLock { $0.status } }

    /// Whether the process has not been reaped yet.
    package var isRunning: Bool { exitStatus == nil }

    /// Calls `body` with the exit status once the process has exited (at once if it has), on the
    /// waiter thread or the caller's.
    package func onExit(_ body: @escaping @Sendable (Int32) -> Void) {
        let status = state.withLock { state -> Int32? in
            if state.status == nil { state.waiters.append(body) }
            return state.status
        }
        if let status { body(status) }
    }

    /// Waits for the exit without blocking a Swift-concurrency thread.
    package func exit() async -> Int32 {
        await withCheckedContinuation { continuation in onExit { continuation.resume(returning: $0) } }
    }

    /// Blocks the calling thread until the process exits or `timeout` passes; nil on timeout.
    package func waitBlocking(timeout: Duration) -> Int32? {
        let semaphore = DispatchSemaphore(value: 0)
        onExit { _ in semaphore.signal() }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
        return exitStatus
    }

    /// Sends `signal` to the process group the child leads (spawned with `newProcessGroup`), unless
    /// the child has been reaped (its ID may be reused then).
    package func sendToGroup(_ signal: Int32) {
        state.withLock { state in
            if state.status == nil { kill(-pid, signal) }
        }
    }

    /// Sends `signal` unless the process has been reaped (its PID may be reused then).
    package func send(_ signal: Int32) {
        state.withLock { state in
            if state.status == nil { kill(pid, signal) }
        }
    }
}
