import Foundation
import LivelineHTTPServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("HTTPServer: slow clients (header deadline, connections per address)")
struct HTTPSlowClientTests {
    @Test("a client trickling one header line every 100 ms is cut off at the request-header deadline, though each line resets the idle timeout")
    func trickledHeadersHitTheDeadline() async throws {
        try await withServer({
            $0.requestHeaderTimeout = .seconds(1)
            $0.connectionTimeout = .seconds(30)
        }, handler: { _ in .text(200, "served") }) { server in
            let port = server.port
            let outcome = try await offPool { () throws -> (lines: Int, elapsed: Duration, closed: Bool, answer: [UInt8]) in
                let fd = try SlowClients.connect(port: port)
                defer { close(fd) }
                let start = ContinuousClock.now
                _ = SlowClients.send(fd, "GET /slow HTTP/1.1\r\nHost: test\r\n")
                var lines = 0
                // One header line per 100 ms, for at most 8 s; the pause is the server's own
                // readiness signal (poll), so a close ends it at once.
                while ContinuousClock.now - start < .seconds(8) {
                    let (bytes, closed) = SlowClients.readUntilClosed(fd, deadline: .now + .milliseconds(100))
                    if closed || !bytes.isEmpty { return (lines, ContinuousClock.now - start, closed, bytes) }
                    guard SlowClients.send(fd, "X-Line-\(lines): x\r\n") else { return (lines, ContinuousClock.now - start, true, []) }
                    lines += 1
                }
                return (lines, ContinuousClock.now - start, false, [])
            }
            #expect(outcome.closed, "still open after \(outcome.elapsed) and \(outcome.lines) lines")
            #expect(outcome.answer.isEmpty, "answered: \(String(decoding: outcome.answer, as: UTF8.self))")
            #expect(outcome.elapsed >= .milliseconds(700), "closed after only \(outcome.elapsed)")
            #expect(outcome.elapsed < .seconds(5), "closed only after \(outcome.elapsed)")
            #expect(outcome.lines >= 5, "only \(outcome.lines) lines were sent before the close")
        }
    }

    @Test("the deadline does not cut a request whose headers came in time: a slow handler and a second request on the kept-alive connection are both answered")
    func deadlineSparesCompleteRequests() async throws {
        // The handler takes longer than the deadline on purpose (the slowness is what is tested).
        try await withServer({ $0.requestHeaderTimeout = .seconds(2) }, handler: { request in
            if request.path == "/slow" { try? await Task.sleep(for: .milliseconds(2500)) }
            return .text(200, "served \(request.path)")
        }) { server in
            // Connect and send on one thread with no wait between: a test task that waited for a
            // cooperative thread after connecting could itself be cut by the 2 s deadline.
            let port = server.port
            let answers = try await offPool { () throws -> [String?] in
                let connection = try RawConnection.connect(port: port)
                try connection.send(get("/slow"))
                let slow = try connection.readResponse()?.text
                try connection.send(get("/next"))
                return [slow, try connection.readResponse()?.text]
            }
            #expect(answers == ["served /slow", "served /next"])
        }
    }

    @Test("1,000 slow connections from one address leave /healthz answering within 2 s to another address; the server keeps 64 of them")
    func thousandSlowConnections() async throws {
        try SlowClients.ensureOpenFiles(4096)
        // A header deadline longer than the test, so only the per-address limit closes connections.
        try await withServer({ $0.perAddressConnectionLimit = 64; $0.requestHeaderTimeout = .seconds(300) }, handler: { request in
            .text(200, request.path == "/healthz" ? "ok" : "other")
        }) { server in
            let port = server.port
            let slow = try await offPool { () throws -> [Int32] in
                try (0..<1000).map { _ in
                    let fd = try SlowClients.connect(port: port)
                    _ = SlowClients.send(fd, "GET /held HTTP/1.1\r\nHost: test\r\nX-Slow: ")
                    return fd
                }
            }
            defer { for fd in slow { close(fd) } }

            // The server closes the connections over the per-address limit as it accepts them;
            // once it has worked through the 1,000 (only 64 still open), they are held.
            let kept = try await offPool { () -> Int in
                let deadline = ContinuousClock.now + .seconds(30)
                var open = slow.count
                while ContinuousClock.now < deadline {
                    open = slow.filter { !SlowClients.isClosedByPeer($0) }.count
                    if open <= 64 { break }
                    var nothing = pollfd(fd: -1, events: 0, revents: 0)
                    _ = poll(&nothing, 1, 50)  // a pause between scans of 1,000 sockets
                }
                return open
            }
            #expect(kept == 64, "\(kept) of the 1,000 slow connections are still open")

            let health = try await offPool { () throws -> (bytes: [UInt8], closed: Bool, elapsed: Duration) in
                let started = ContinuousClock.now
                let fd = try SlowClients.connect(port: port, from: "127.0.0.2", timeout: 2)
                defer { close(fd) }
                _ = SlowClients.send(fd, "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                let (bytes, closed) = SlowClients.readUntilClosed(fd, deadline: started + .seconds(2))
                return (bytes, closed, ContinuousClock.now - started)
            }
            let text = String(decoding: health.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"), "/healthz after \(health.elapsed): \(text.isEmpty ? "no answer" : text)")
            #expect(text.hasSuffix("ok"), "\(text)")
            #expect(health.closed && health.elapsed < .seconds(2), "/healthz took \(health.elapsed)")
            // Still held: the slow connections were not closed to make room.
            #expect(slow.filter { !SlowClients.isClosedByPeer($0) }.count == 64)
        }
    }

    @Test("perAddressConnectionLimit and requestHeaderTimeout have safe defaults and refuse negative values")
    func defaultsAndValidation() throws {
        let defaults = HTTPServerConfiguration()
        #expect(defaults.perAddressConnectionLimit > 0 && defaults.perAddressConnectionLimit < defaults.connectionLimit)
        #expect(defaults.requestHeaderTimeout > .zero && defaults.requestHeaderTimeout <= defaults.connectionTimeout)
        for (change, fragment) in [({ (c: inout HTTPServerConfiguration) in c.perAddressConnectionLimit = -1 }, "perAddressConnectionLimit -1 must not be negative"),
                                   ({ (c: inout HTTPServerConfiguration) in c.requestHeaderTimeout = .seconds(-1) }, "requestHeaderTimeout")] {
            var configuration = HTTPServerConfiguration()
            change(&configuration)
            let error = #expect(throws: HTTPServerError.self) { _ = try HTTPServer.start(configuration) { _ in .text(200, "") } }
            #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
        }
    }
}
