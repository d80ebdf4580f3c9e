import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one `posix_spawn` of the package: every child process (a test's tool, a server, the demo's
/// service, chromedriver's group) starts here, with the same hygiene.
///
/// - Only the descriptors given in `descriptors` are inherited (dup2'd onto their numbers); every
///   other one above them is closed in the child, so a child started concurrently on another thread
///   never holds a pipe end of this one (a reader would then wait for an unrelated program to exit).
/// - An empty signal mask and default dispositions: a Swift-concurrency (dispatch worker) thread
///   blocks SIGTERM, SIGINT and SIGHUP, and a child would otherwise inherit that and ignore them.
/// - Optionally a process group of its own (one `kill(-pid, ...)` then reaches everything it starts).
package enum Spawn {
    /// Starts `executable` (an absolute path) with `arguments` (after argv[0], which is the path).
    /// - Parameters:
    ///   - environment: the whole environment (this process's when nil).
    ///   - directory: the working directory (this process's when nil).
    ///   - descriptors: (descriptor in this process, number in the child) pairs; the child
    ///     inherits these and nothing else.
    ///   - newProcessGroup: whether the child leads a process group of its own.
    /// - Returns: the child's process ID. The caller reaps it.
    /// - Throws: `ProcessError` naming the program and the reason it could not start.
    package static func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: URL? = nil,
        descriptors: [(Int32, Int32)],
        newProcessGroup: Bool = false
    ) throws(ProcessError) -> pid_t {
        guard access(executable, X_OK) == 0 else {
            throw ProcessError("cannot run \(executable): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the target, so these are inherited.
        for (source, target) in descriptors { posix_spawn_file_actions_adddup2(&actions, source, target) }
        closeInherited(&actions, from: (descriptors.map(\.1).max() ?? 2) + 1)
        if let directory {
            guard let addchdir = SpawnExtensions.addchdir else {
                throw ProcessError("cannot run \(executable) in \(directory.path): posix_spawn_file_actions_addchdir_np is missing")
            }
            let result = directory.path.withCString { addchdir(&actions, $0) }
            guard result == 0 else { throw ProcessError("cannot run \(executable) in \(directory.path): \(String(cString: strerror(result)))") }
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
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in env { free(pointer) } }

        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard result == 0 else { throw ProcessError("cannot run \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    /// A pipe whose both ends are closed on exec (a child gets its end through `descriptors` only).
    /// - Throws: `ProcessError` when the process is out of descriptors.
    package static func pipe() throws(ProcessError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard SpawnExtensions.pipe2(&fds, O_CLOEXEC) == 0 else {
            throw ProcessError("pipe2 failed: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }

    /// Closes every descriptor from `first` up in the child (glibc's `closefrom` action when
    /// present, else one close per descriptor open now).
    private static func closeInherited(_ actions: inout posix_spawn_file_actions_t, from first: Int32) {
        if let closefrom = SpawnExtensions.addclosefrom, closefrom(&actions, first) == 0 { return }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd >= first {
            posix_spawn_file_actions_addclose(&actions, fd)
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
