import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished program printed and how it ended.
public struct ProcessOutput: Sendable {
    /// The exit code, or 128 + the signal number when a signal killed it (-1 if it was reaped
    /// by other code in this process and its status is lost).
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: Data
    /// Everything written to standard error.
    public var stderr: Data

    /// Standard output decoded as UTF-8.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error decoded as UTF-8.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    /// Whether the run's time limit passed first and the program (with every process it started) was killed.
    public var timedOut = false
}

/// Runs a program to completion: the one place the tools, tests and test support start short-lived programs.
///
/// The program runs and is waited for on a dedicated thread, never on one of Swift concurrency's
/// few cooperative threads, so tests running in parallel keep those free for their servers.
/// Standard input is written and both outputs are read together (`poll`), so a chatty program
/// never blocks on a full pipe.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` and returns its status and output (a failing status is
    /// returned, not thrown).
    /// - Parameters:
    ///   - executable: absolute path of the program.
    ///   - arguments: its arguments.
    ///   - stdin: bytes for its standard input (`/dev/null` when nil).
    ///   - directory: its working directory (the current one when nil).
    ///   - environment: its whole environment (this process's when nil).
    ///   - limit: the most the run may take (wall clock); past it the program and its process
    ///     group (it leads one then: whatever it started) are killed and `timedOut` is set.
    /// - Throws: `ProcessError` when the program cannot be started.
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        stdin: Data? = nil,
        directory: URL? = nil,
        environment: [String: String]? = nil,
        within limit: Duration? = nil
    ) async throws -> ProcessOutput {
        try await withCheckedThrowingContinuation { continuation in
            startThread(name: executable) {
                continuation.resume(with: Result {
                    try runHere(executable, arguments, stdin: stdin, directory: directory, environment: environment, limit: limit)
                })
            }
        }
    }

    /// `run` for synchronous callers: the same dedicated thread, the caller blocks until it ends.
    /// From async code use `run`.
    /// - Throws: `ProcessError` when the program cannot be started.
    public static func runBlocking(
        _ executable: String,
        _ arguments: [String] = [],
        stdin: Data? = nil,
        directory: URL? = nil,
        environment: [String: String]? = nil
    ) throws -> ProcessOutput {
        let result = Mutexed<Result<ProcessOutput, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        startThread(name: executable) {
            result.set(Result { try runHere(executable, arguments, stdin: stdin, directory: directory, environment: environment, limit: nil) })
            done.signal()
        }
        done.wait()
        return try result.get()!.get()
    }

    /// Runs `executable` and returns its standard output, throwing with its standard error when
    /// it exits with a status other than 0.
    /// - Throws: `ProcessError` naming the command, its status and its standard error.
    @discardableResult
    public static func checked(_ executable: String, _ arguments: [String], stdin: Data? = nil) async throws -> Data {
        try check(await run(executable, arguments, stdin: stdin), executable, arguments)
    }

    /// `checked` for synchronous callers (blocks the caller; from async code use `checked`).
    /// - Throws: `ProcessError` naming the command, its status and its standard error.
    @discardableResult
    public static func checkedBlocking(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> Data {
        try check(runBlocking(executable, arguments, stdin: stdin), executable, arguments)
    }

    private static func check(_ output: ProcessOutput, _ executable: String, _ arguments: [String]) throws -> Data {
        guard output.status == 0 else {
            let command = ([executable] + arguments).joined(separator: " ")
            throw ProcessError("`\(command)` exited with status \(output.status): \(output.stderrText)")
        }
        return output.stdout
    }

    private static func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Writing to a program that already closed its input must give EPIPE, not kill us.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            body()
        }
        thread.name = "run \(URL(fileURLWithPath: name).lastPathComponent)"
        thread.stackSize = 1 << 19
        thread.start()
    }

    /// Starts the program and does its I/O on the calling (dedicated) thread.
    private static func runHere(
        _ executable: String, _ arguments: [String], stdin: Data?, directory: URL?, environment: [String: String]?, limit: Duration?
    ) throws -> ProcessOutput {
        let deadline = limit.map { ContinuousClock.now + $0 }
        let output = try Spawn.pipe(), errors = try Spawn.pipe()
        var input: (read: Int32, write: Int32)
        if stdin != nil {
            input = try Spawn.pipe()
        } else {
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard null >= 0 else { throw ProcessError("cannot open /dev/null: \(String(cString: strerror(errno)))") }
            input = (null, -1)
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments, environment: environment, directory: directory, newProcessGroup: limit != nil,
                                           stdin: input.read, stdout: output.write, stderr: errors.write)
        } catch {
            for fd in [output.read, output.write, errors.read, errors.write, input.read, input.write] where fd >= 0 { close(fd) }
            throw error
        }
        close(output.write)
        close(errors.write)
        close(input.read)

        var pending = stdin.map { Array($0) } ?? []
        var written = 0
        if input.write >= 0 {
            _ = fcntl(input.write, F_SETFL, fcntl(input.write, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty {
                close(input.write)
                input.write = -1
            }
        }
        var stdoutData = Data(), stderrData = Data()
        var timedOut = false
        var reading: [Int32: Bool] = [output.read: true, errors.read: true]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while reading.values.contains(true) || input.write >= 0 {
            var fds: [pollfd] = []
            if input.write >= 0 { fds.append(pollfd(fd: input.write, events: Int16(POLLOUT), revents: 0)) }
            for (fd, open) in reading where open { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero {
                    // Past the limit: kill the program and whatever it started (a grandchild may
                    // hold the pipes open), and stop reading.
                    child.sendToGroup(SIGKILL)
                    timedOut = true
                    break
                }
                wait = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            }
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == input.write {
                    let count = pending[written...].withUnsafeBytes { write(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 { written += count }
                    if count < 0 && errno == EAGAIN { continue }
                    if count <= 0 || written == pending.count {
                        // All written, or the program stopped reading (EPIPE): end its input.
                        close(input.write)
                        input.write = -1
                        pending = []
                    }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == output.read {
                        stdoutData.append(contentsOf: buffer[0..<count])
                    } else {
                        stderrData.append(contentsOf: buffer[0..<count])
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    reading[entry.fd] = false
                }
            }
        }
        close(output.read)
        close(errors.read)
        if input.write >= 0 { close(input.write) }
        let status = child.waitBlocking(timeout: timedOut ? .seconds(10) : .seconds(86_400)) ?? -1
        return ProcessOutput(status: status, stdout: stdoutData, stderr: stderrData, timedOut: timedOut)
    }
}
