import Foundation
import LivelineProcess
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An external server process (nghttpd, nginx, `openssl s_server`) started for a test on a
/// loopback port, ready once it accepts connections, stopped by `stop()`.
///
/// Tools like nghttpd and nginx cannot report a port they chose, so `freePort()` binds a socket
/// to port 0, reads the port the kernel picked and closes it; the server is then started on it.
/// `start` polls `connect` until it succeeds or `readyTimeout` passes (no fixed sleeps).
public final class ServerProcess: Sendable {
    /// The loopback address the server listens on.
    public let host: String
    /// The TCP port the server listens on.
    public let port: Int
    /// File receiving the process's stdout and stderr.
    public let logFile: URL
    /// Files to delete on `stop()` (a temp directory for configs), if any.
    private let cleanup: [URL]
    private let process: Mutex<ChildProcess?>

    private init(host: String, port: Int, logFile: URL, process: ChildProcess, cleanup: [URL]) {
        self.host = host
        self.port = port
        self.logFile = logFile
        self.process = Mutex(process)
        self.cleanup = cleanup
    }

    deinit {
        stop()
    }

    /// Returns a TCP port on `host` that was free a moment ago (bind to port 0, read, close).
    /// - Throws: `TestingError` when no socket can be bound.
    public static func freePort(host: String = "127.0.0.1") throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestingError("socket() failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = try loopbackAddress(host: host, port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestingError("bind(\(host):0) failed: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestingError("getsockname failed: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `executable` and waits until `host:port` accepts TCP connections.
    /// - Parameters:
    ///   - executable: absolute path of the program.
    ///   - arguments: its arguments (they must make it listen on `host:port`).
    ///   - host: the IPv4 loopback address it listens on.
    ///   - port: the port it listens on (from `freePort()`).
    ///   - workingDirectory: its working directory, if any.
    ///   - readyTimeout: how long to wait for the first accepted connection.
    ///   - cleanup: files or directories to delete when the server stops.
    /// - Throws: `TestingError` when the program cannot start, exits early (with its log), or does
    ///   not accept a connection within `readyTimeout`.
    public static func start(
        executable: String,
        arguments: [String],
        host: String = "127.0.0.1",
        port: Int,
        workingDirectory: URL? = nil,
        readyTimeout: Duration = .seconds(10),
        cleanup: [URL] = []
    ) throws -> ServerProcess {
        let (server, process) = try launch(executable: executable, arguments: arguments, host: host, port: port,
                                           workingDirectory: workingDirectory, cleanup: cleanup)
        let deadline = ContinuousClock.now + readyTimeout
        while true {
            if let failure = server.readiness(process, deadline: deadline, readyTimeout: readyTimeout) { throw failure }
            if canConnect(host: host, port: port) { return server }
            usleep(5_000)  // polling interval between connect attempts, bounded by the deadline
        }
    }

    /// `start` for async callers: the same, but waits between connect attempts with `Task.sleep`,
    /// keeping Swift's cooperative threads free.
    /// - Throws: as `start`.
    public static func launch(
        executable: String,
        arguments: [String],
        host: String = "127.0.0.1",
        port: Int,
        workingDirectory: URL? = nil,
        readyTimeout: Duration = .seconds(10),
        cleanup: [URL] = []
    ) async throws -> ServerProcess {
        let (server, process) = try launch(executable: executable, arguments: arguments, host: host, port: port,
                                           workingDirectory: workingDirectory, cleanup: cleanup)
        let deadline = ContinuousClock.now + readyTimeout
        while true {
            if let failure = server.readiness(process, deadline: deadline, readyTimeout: readyTimeout) { throw failure }
            if canConnect(host: host, port: port) { return server }
            try? await Task.sleep(for: .milliseconds(5))  // polling interval, bounded by the deadline
        }
    }

    private static func launch(
        executable: String, arguments: [String], host: String, port: Int, workingDirectory: URL?, cleanup: [URL]
    ) throws -> (ServerProcess, ChildProcess) {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let logFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveline-\(name)-\(port)-\(UUID().uuidString.prefix(8)).log")
        let log = open(logFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else {
            throw TestingError("cannot open log file \(logFile.path): \(String(cString: strerror(errno)))")
        }
        defer { close(log) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let process: ChildProcess
        do {
            process = try ChildProcess.spawn(executable, arguments, directory: workingDirectory,
                                             stdin: null, stdout: log, stderr: log)
        } catch {
            try? FileManager.default.removeItem(at: logFile)
            throw error
        }
        let server = ServerProcess(host: host, port: port, logFile: logFile, process: process, cleanup: cleanup + [logFile])
        return (server, process)
    }

    /// The error to throw when the server exited or the deadline passed, stopping it; else nil.
    private func readiness(_ process: ChildProcess, deadline: ContinuousClock.Instant, readyTimeout: Duration) -> TestingError? {
        if let status = process.exitStatus {
            let output = log()
            stop()
            return TestingError("\(process.name) exited with status \(status) before accepting connections on \(host):\(port): \(output)")
        }
        if ContinuousClock.now >= deadline {
            let output = log()
            stop()
            return TestingError("\(process.name) did not accept connections on \(host):\(port) within \(readyTimeout): \(output)")
        }
        return nil
    }

    /// The process's output so far (stdout and stderr).
    public func log() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// The process ID, or nil once stopped.
    public var processIdentifier: Int32? {
        process.withLock { $0?.pid }
    }

    /// Freezes the process (SIGSTOP): it keeps its sockets but answers nothing, like a hung
    /// server. `resume()` continues it.
    public func pause() {
        if let pid = processIdentifier { kill(pid, SIGSTOP) }
    }

    /// Continues a process frozen by `pause()` (SIGCONT).
    public func resume() {
        if let pid = processIdentifier { kill(pid, SIGCONT) }
    }

    /// Whether the process is still running.
    public var isRunning: Bool {
        process.withLock { $0?.isRunning ?? false }
    }

    /// Terminates the process (SIGTERM, then SIGKILL after 2 s), waits for it, deletes its files.
    /// Safe to call more than once. The wait is short: the server exits within milliseconds of
    /// SIGTERM (it is started with no signal blocked).
    public func stop() {
        let running = process.withLock { current -> ChildProcess? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        if running.isRunning {
            running.send(SIGCONT)
            running.send(SIGTERM)
            if running.waitBlocking(timeout: .seconds(2)) == nil {
                running.send(SIGKILL)
                _ = running.waitBlocking(timeout: .seconds(60))
            }
        }
        for url in cleanup { try? FileManager.default.removeItem(at: url) }
    }

    /// Whether a TCP connection to `host:port` succeeds right now.
    public static func canConnect(host: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard var address = try? loopbackAddress(host: host, port: port) else { return false }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }

    private static func loopbackAddress(host: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw TestingError("not an IPv4 address: \(host)")
        }
        return address
    }
}
