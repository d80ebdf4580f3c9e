import Foundation
import LivelineHTTP2
import LivelineProcess
import LivelineTesting
import Testing

/// The accept back-off for real (AcceptBackoffTests covers the decisions): the built `liveline
/// simulator`, started under `prlimit --nofile`, is flooded with TCP connections until `accept`
/// fails with EMFILE; while saturated it must stay nearly idle, and it must serve again once the
/// connections close.
@Suite("liveline simulator out of file descriptors")
struct AcceptOutOfDescriptorsTests {
    static let prlimit = "/usr/bin/prlimit"

    /// utime + stime of `pid` in clock ticks (/proc/<pid>/stat fields 14 and 15).
    static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { throw TestingError("unreadable /proc/\(pid)/stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so utime (14) and stime (15) are fields[11] and fields[12].
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestingError("unreadable /proc/\(pid)/stat: \(stat)")
        }
        return user + system
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// A plain TCP connection to 127.0.0.1:`port` (it completes in the kernel's backlog whether or
    /// not the server accepts it); nil when connect fails.
    static func tcpConnect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    @Test("accept failing with EMFILE: the server logs it once, uses little CPU while saturated, and serves again when connections close")
    func backsOffAndRecovers() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.prlimit), "needs prlimit (Debian: util-linux)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-emfile-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let limit = 64
        let server = try RunningProcess.start(Self.prlimit, ["--nofile=\(limit):\(limit)", "--", SimulatorCommandTests.binary,
                                                             "simulator", "--port", "0", "--state-dir", dir], keepStandardError: true)
        defer { server.send(SIGKILL) }
        let pid = server.processIdentifier  // prlimit execs the simulator: the same process
        let ready = try await server.output(containing: "Ready.", within: .seconds(60))
        let prefix = "listening on https://127.0.0.1:"
        let port = try #require(ready.components(separatedBy: prefix).dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }, "\(ready)")
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ").map(String.init) ?? []
        #expect(openFiles.count >= 5 && openFiles[3] == "\(limit)" && openFiles[4] == "\(limit)", "\(limits)")

        // More connections than the server has descriptors: the rest wait in the backlog, so the
        // listening socket stays readable while accept fails. That is what used to spin.
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<(limit + 32) {
            guard let fd = Self.tcpConnect(port: port) else { break }
            sockets.append(fd)
        }
        #expect(sockets.count == limit + 32)
        _ = try await server.output(containing: "(errno \(EMFILE))", within: .seconds(30))
        let output = server.standardOutput
        #expect(output.contains("accept failed: ") && output.contains("not accepting for 0.1 seconds at a time"), "\(output)")

        // Saturated: every descriptor in use, connections still waiting. Measure CPU over a fixed
        // window, well inside the 10 s handshake timeout that would free descriptors.
        #expect(Self.openDescriptors(pid) >= limit - 1)
        let window = Duration.seconds(2)
        let before = try Self.cpuTicks(pid)
        let started = ContinuousClock.now
        // The measurement window itself (CPU used over a fixed time), not a wait for anything.
        try await Task.sleep(for: window)
        let elapsed = ContinuousClock.now - started
        let used = try Self.cpuTicks(pid) - before
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        let allowed = ticksPerSecond / 5 * 2  // 0.4 s of CPU in 2 s; a spinning loop uses about one core
        #expect(used <= allowed, "the server used \(used) ticks (\(ticksPerSecond)/s) of CPU in \(elapsed) while out of descriptors")
        #expect(Self.openDescriptors(pid) >= limit - 1, "the connections were dropped during the window: the measurement saw no saturation")
        // Only the first failure of the run is logged.
        #expect(server.standardOutput.components(separatedBy: "accept failed: ").count == 2)

        // Close everything: the server must accept and serve again.
        for fd in sockets { close(fd) }
        sockets.removeAll()
        let configuration = HTTP2ClientConfiguration(trust: .caFile(dir + "/simulator-ca.pem"), connectTimeout: .seconds(20))
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: configuration)
        let status = try await connection.send(HTTP2Request(path: "/simulator/v1/status"))
        #expect(status.status == 200)
        await connection.close()

        server.send(SIGTERM)
        #expect(try await server.exitStatus(within: .seconds(30)) == 0)
    }
}
