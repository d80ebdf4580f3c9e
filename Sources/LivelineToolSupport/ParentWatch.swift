import Foundation
import LivelineProcess
#if canImport(Glibc)
import Glibc
#endif

/// A Liveline process started by another (the demo's service and simulator, a test's servers)
/// stops when its parent is gone, however the parent died (SIGKILL, SIGPIPE, a crash): the parent
/// leaves it the read end of a pipe (`LIVELINE_PARENT_FD`, set by LivelineProcess's process
/// starter) whose other end only the parent holds. End-of-file there raises SIGTERM in this
/// process, so a server stops as on SIGTERM: requests answer, pushes in flight are recorded.
public enum ParentWatch {
    /// Starts watching when this process was started that way; does nothing otherwise.
    public static func start() {
        guard let text = ProcessInfo.processInfo.environment[RunningProcess.parentWatchVariable], let fd = Int32(text), fd > 2 else { return }
        unsetenv(RunningProcess.parentWatchVariable)
        // Only a pipe counts: a stray variable must not make an unrelated descriptor a kill switch.
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not inherited by this process's own children
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(fd, &byte, 1)
                if n == 0 || (n < 0 && errno != EINTR) { break }
            }
            kill(getpid(), SIGTERM)
        }
        thread.name = "parent watch"
        thread.stackSize = 1 << 16
        thread.start()
    }
}
