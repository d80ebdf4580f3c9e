import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as a raw client read it.
struct RawResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP client speaking just enough HTTP/1.1 for the edge cases curl cannot produce
/// (pipelined keep-alive requests, hand-made chunks, disconnecting mid-request).
///
/// Confinement: one thread uses it at a time (tests await each `offPool` call before the next),
/// hence `@unchecked Sendable`.
final class RawConnection: @unchecked Sendable {
    private var fd: Int32
    fileprivate var buffer: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    /// How long one receive may wait for data.
    static let receiveDeadlineSeconds = 120

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Connects to `host` (an IPv4 literal) and `port`. Every read has a deadline: a receive that
    /// waits `receiveDeadlineSeconds` for data fails the test with a message saying so.
    static func connect(host: String = "127.0.0.1", port: Int) throws -> RawConnection {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw ClientError(description: "connect to \(host):\(port): \(reason)")
        }
        var timeout = timeval(tv_sec: receiveDeadlineSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return RawConnection(fd: fd)
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }  // a signal to this thread (a child exiting), not the server
            guard sent > 0 else { throw ClientError(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads one response; nil when the connection closes before a response begins.
    /// - Parameter forHead: the request was HEAD: no body follows the headers.
    func readResponse(forHead: Bool = false) throws -> RawResponse? {
        var headEnd: Int?
        while true {
            if let end = find([13, 10, 13, 10]) { headEnd = end; break }
            if try fill() == 0 {
                if buffer.isEmpty { return nil }
                throw ClientError(description: "connection closed inside a response head")
            }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line in \(head)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if forHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody()
        } else if let length = response.header("content-length").flatMap(Int.init) {
            response.body = try read(count: length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads until the peer closes (or resets) the connection.
    func readToEnd() throws -> [UInt8] {
        while try fill() > 0 {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether data (or EOF) arrives within `milliseconds`.
    func isReadable(withinMilliseconds milliseconds: Int32) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func read(count: Int) throws -> [UInt8] {
        while buffer.count < count {
            if try fill() == 0 { throw ClientError(description: "connection closed inside a body (\(buffer.count) of \(count) bytes)") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func readLine() throws -> String {
        while true {
            if let end = find([13, 10]) {
                defer { buffer.removeFirst(end + 2) }
                return String(decoding: buffer[..<end], as: UTF8.self)
            }
            if try fill() == 0 { throw ClientError(description: "connection closed inside a chunk header") }
        }
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeText = try readLine().split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw ClientError(description: "bad chunk size \(sizeText)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try read(count: size)
            _ = try readLine()
        }
    }

    fileprivate func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start] == pattern[0] {
            if Array(buffer[start..<(start + pattern.count)]) == pattern { return start }
        }
        return nil
    }

    /// Reads more bytes into the buffer; 0 at EOF or reset.
    fileprivate func fill() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var count: Int
        // EINTR is a signal to this thread (a child process exiting), not the server: read again.
        repeat { count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } } while count < 0 && errno == EINTR
        if count < 0 {
            if errno == ECONNRESET { return 0 }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw ClientError(description: "recv: nothing arrived within the \(Self.receiveDeadlineSeconds) s receive deadline")
            }
            throw ClientError(description: "recv: \(String(cString: strerror(errno)))")
        }
        buffer += chunk[..<count]
        return count
    }
}

extension RawConnection {
    /// Sends `request` and reads its response, off the concurrency pool.
    func exchange(_ request: String, forHead: Bool = false) async throws -> RawResponse? {
        try await offPool {
            try self.send(request)
            return try self.readResponse(forHead: forHead)
        }
    }

    static func connect(port: Int) async throws -> RawConnection {
        try await offPool { try RawConnection.connect(port: port) }
    }
}

/// `GET path` with a Host header and any extra header lines.
func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

extension RawConnection {
    /// Reads raw bytes until they contain `text`; returns everything up to and including it
    /// (streamed bodies: the chunk framing stays in).
    func read(until text: String) throws -> String {
        let pattern = Array(text.utf8)
        while true {
            if let start = find(pattern) {
                let end = start + pattern.count
                defer { buffer.removeFirst(end) }
                return String(decoding: buffer[..<end], as: UTF8.self)
            }
            if try fill() == 0 { throw ClientError(description: "connection closed before \"\(text)\"") }
        }
    }
}
