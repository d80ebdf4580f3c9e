import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Raw loopback sockets for the slow-client tests: many half-sent requests at once, and a client
/// whose source address is another loopback address (Linux routes all of 127.0.0.0/8 to `lo`).
enum SlowClients {
    /// Raises the soft limit on open files to at least `needed` (up to the hard limit); throws
    /// naming both limits when it cannot.
    static func ensureOpenFiles(_ needed: Int) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw ClientError(description: "getrlimit(RLIMIT_NOFILE): \(String(cString: strerror(errno)))")
        }
        if limit.rlim_cur >= rlim_t(needed) { return }
        guard limit.rlim_max >= rlim_t(needed) else {
            throw ClientError(description: "this test needs \(needed) open files; the hard limit is \(limit.rlim_max) (raise it with ulimit -Hn as root)")
        }
        let soft = limit.rlim_cur
        limit.rlim_cur = rlim_t(needed)
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw ClientError(description: "this test needs \(needed) open files; raising the soft limit from \(soft) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// A connected TCP socket from `source` (any port) to `127.0.0.1:port`, with send and
    /// receive timeouts of `timeout` seconds.
    static func connect(port: Int, from source: String = "127.0.0.1", timeout: Int = 10) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = bound == 0 ? withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) } } : -1
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ClientError(description: "connect from \(source) to 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the peer closes or `deadline`; what came, and whether the peer closed.
    static func readUntilClosed(_ fd: Int32, deadline: ContinuousClock.Instant) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&entry, 1, milliseconds) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (bytes, true) }
            bytes += chunk[..<count]
        }
        return (bytes, false)
    }

    /// Whether the peer closed `fd` (EOF or reset is waiting), without blocking.
    static func isClosedByPeer(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }
}
