import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, reaped by a dedicated waiter thread.
///
/// Why not `Foundation.Process`: a process spawned from a Swift-concurrency (dispatch worker)
/// thread inherits that thread's signal mask, in which SIGTERM, SIGINT and SIGHUP are blocked, so
/// the child ignores `terminate()`; and `Process` leaves its pipes and its exit-detection socket
/// inheritable, so a child started concurrently on another thread can hold them open (a reader
/// then waits for an unrelated server to exit). Here the child gets an empty signal mask and
/// default dispositions, and inherits only descriptors 0, 1 and 2, and 3: the parent watch (a
/// pipe that reads end-of-file once this process is gone; see `ParentWatch`).
final class ChildProcess: Sendable {
    /// The process ID.
    let pid: pid_t
    /// The program's file name, for messages.
    let name: String
    private let state = Mutex<State>(State())

    private struct State {
        var status: Int32?
        var waiters: [@Sendable (Int32) -> Void] = []
        /// The write end of the child's parent-watch pipe, open while the child runs.
        var watch: Int32?
    }

    /// The environment variable naming the descriptor on which a child reads end-of-file when
    /// its parent is gone (`ParentWatch` in the child acts on it).
    static let parentWatchVariable = "LIVELINE_PARENT_FD"
    /// The descriptor number the child finds it on.
    static let parentWatchDescriptor: Int32 = 3

    private init(pid: pid_t, name: String, watch: Int32) {
        self.pid = pid
        self.name = name
        state.withLock { $0.watch = watch }
    }

    /// Closes this process's end of the parent-watch pipe, as this process's death would: a
    /// Liveline child then stops as on SIGTERM. (For tests; the waiter closes it after the exit.)
    func releaseParentWatch() {
        let fd = state.withLock { s -> Int32? in
            defer { s.watch = nil }
            return s.watch
        }
        if let fd { close(fd) }
    }

    /// Starts `executable` with `arguments`, its standard streams on the given descriptors.
    /// - Throws: `TestingError` naming the program when it cannot be started.
    static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: URL? = nil,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> ChildProcess {
        guard access(executable, X_OK) == 0 else {
            throw TestingError("cannot run \(executable): \(String(cString: strerror(errno)))")
        }
        // The parent watch: the child gets the read end as descriptor 3; this process keeps the
        // write end (close-on-exec, so no other child inherits it) until the child is reaped. When
        // this process dies, however it dies, the kernel closes it and the child reads end-of-file.
        var watch: [Int32] = [-1, -1]
        guard SpawnExtensions.pipe2(&watch, O_CLOEXEC) == 0 else {
            throw TestingError("cannot run \(executable): pipe: \(String(cString: strerror(errno)))")
        }
        defer { close(watch[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the target, so these four are inherited.
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        posix_spawn_file_actions_adddup2(&actions, watch[0], parentWatchDescriptor)
        try closeInheritedDescriptors(&actions, from: parentWatchDescriptor + 1)
        if let directory {
            guard let addchdir = SpawnExtensions.addchdir else {
                throw TestingError("cannot run \(executable) in \(directory.path): posix_spawn_file_actions_addchdir_np is missing")
            }
            let result = directory.path.withCString { addchdir(&actions, $0) }
            guard result == 0 else { throw TestingError("cannot run \(executable) in \(directory.path): \(String(cString: strerror(result)))") }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = environment ?? ProcessInfo.processInfo.environment
        variables[parentWatchVariable] = String(parentWatchDescriptor)
        let env = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in env { free(pointer) } }

        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard result == 0 else {
            close(watch[1])
            throw TestingError("cannot run \(executable): \(String(cString: strerror(result)))")
        }
        let child = ChildProcess(pid: pid, name: URL(fileURLWithPath: executable).lastPathComponent, watch: watch[1])
        child.startWaiter()
        return child
    }

    /// Closes every descriptor above 2 in the child (glibc's `closefrom` action when present,
    /// else one close per descriptor open now).
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, from first: Int32) throws {
        if let closefrom = SpawnExtensions.addclosefrom {
            _ = closefrom(&actions, first)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd >= first {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
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
    var exitStatus: Int32? { state.withLock { $0.status } }

    /// Whether the process has not been reaped yet.
    var isRunning: Bool { exitStatus == nil }

    /// Calls `body` with the exit status once the process has exited (at once if it has), on the
    /// waiter thread or the caller's.
    func onExit(_ body: @escaping @Sendable (Int32) -> Void) {
        let status = state.withLock { state -> Int32? in
            if state.status == nil { state.waiters.append(body) }
            return state.status
        }
        if let status { body(status) }
    }

    /// Waits for the exit without blocking a Swift-concurrency thread.
    func exit() async -> Int32 {
        await withCheckedContinuation { continuation in onExit { continuation.resume(returning: $0) } }
    }

    /// Blocks the calling thread until the process exits or `timeout` passes; nil on timeout.
    func waitBlocking(timeout: Duration) -> Int32? {
        let semaphore = DispatchSemaphore(value: 0)
        onExit { _ in semaphore.signal() }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
        return exitStatus
    }

    /// Sends `signal` unless the process has been reaped (its PID may be reused then).
    func send(_ signal: Int32) {
        state.withLock { state in
            if state.status == nil { kill(pid, signal) }
        }
    }
}

/// glibc functions that Swift's Glibc module does not import (GNU extensions), looked up once.
enum SpawnExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addclosefrom: AddCloseFrom? = lookup("posix_spawn_file_actions_addclosefrom_np")
    static let addchdir: AddChdir? = lookup("posix_spawn_file_actions_addchdir_np")

    /// `pipe2`, or `pipe` then `FD_CLOEXEC` on both ends where it is missing.
    static func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 {
        if let pipe2 = pipe2Function { return pipe2(fds, flags) }
        guard pipe(fds) == 0 else { return -1 }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    private static let pipe2Function: Pipe2? = lookup("pipe2")

    private static func lookup<F>(_ name: String) -> F? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: F.self)
    }
}
