import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A long-running program (a server that prints where it listens: the demo's service, a test's
/// server): its standard output is collected by a dedicated thread, and waiting for a line or for
/// the exit suspends the task instead of blocking a Swift-concurrency thread. (Bounded waits on
/// it, for tests, are LivelineTesting's `output(containing:within:)` and `exitStatus(within:)`.)
public final class RunningProcess: Sendable {
    private let child: ChildProcess
    private let output = Mutex<Output>(Output())

    private struct Output {
        var text = ""
        var closed = false
        var waiters: [(needle: String, continuation: CheckedContinuation<String?, Never>)] = []
    }

    /// The process ID.
    public var processIdentifier: Int32 { child.pid }

    /// The program's file name, for messages.
    public var name: String { child.name }

    /// The environment variable that tells a started process which descriptor reads
    /// end-of-file once its starter is gone (every process started here gets it).
    public static var parentWatchVariable: String { ChildProcess.parentWatchVariable }

    /// Closes this process's end of the child's parent watch, as this process's death would.
    public func releaseParentWatch() { child.releaseParentWatch() }

    /// Whether the process has not exited yet.
    public var isRunning: Bool { child.isRunning }

    /// Standard output so far.
    public var standardOutput: String { output.withLock { $0.text } }

    /// Starts `executable`; its standard error goes to `/dev/null` unless `keepStandardError`,
    /// then it is merged into the collected output.
    /// - Throws: `ProcessError` when the program cannot be started.
    public static func start(
        _ executable: String,
        _ arguments: [String] = [],
        directory: URL? = nil,
        environment: [String: String]? = nil,
        keepStandardError: Bool = false
    ) throws -> RunningProcess {
        let pipe = try Spawn.pipe()
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments, environment: environment, directory: directory,
                                           stdin: null, stdout: pipe.write, stderr: keepStandardError ? pipe.write : null)
        } catch {
            close(pipe.read)
            close(pipe.write)
            throw error
        }
        close(pipe.write)
        let process = RunningProcess(child: child)
        process.startReader(pipe.read)
        return process
    }

    private init(child: ChildProcess) {
        self.child = child
    }

    deinit {
        child.send(SIGKILL)
    }

    private func startReader(_ fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                let ready = output.withLock { state -> [(CheckedContinuation<String?, Never>, String?)] in
                    if count > 0 {
                        state.text += String(decoding: buffer[0..<count], as: UTF8.self)
                    } else {
                        state.closed = true
                    }
                    var resumed: [(CheckedContinuation<String?, Never>, String?)] = []
                    let text = state.text
                    state.waiters.removeAll { waiter in
                        if text.contains(waiter.needle) {
                            resumed.append((waiter.continuation, text))
                            return true
                        }
                        if state.closed {
                            resumed.append((waiter.continuation, nil))
                            return true
                        }
                        return false
                    }
                    return resumed
                }
                for (continuation, text) in ready { continuation.resume(returning: text) }
                if count <= 0 { break }
            }
            close(fd)
        }
        thread.name = "read \(child.name)"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Waits until the output contains `needle` and returns the output so far.
    /// - Throws: `ProcessError` with the output when the program closes its output first.
    public func output(containing needle: String) async throws -> String {
        let text = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let immediate = output.withLock { state -> String?? in
                if state.text.contains(needle) { return .some(state.text) }
                if state.closed { return .some(nil) }
                state.waiters.append((needle, continuation))
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        guard let text else {
            throw ProcessError("\(child.name) closed its output without printing \"\(needle)\": \(standardOutput)")
        }
        return text
    }

    /// Sends `signal` (e.g. `SIGTERM`) unless the process has exited.
    public func send(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits for the exit; returns the exit code, or 128 + the signal that killed it.
    public func exitStatus() async -> Int32 {
        await child.exit()
    }
}
