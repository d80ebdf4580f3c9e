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
            let connection = try await RawConnection.connect(port: server.port)
            #expect(try await connection.exchange(get("/slow"))?.text == "served /slow")
            #expect(try await connection.exchange(get("/next"))?.text == "served /next")
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
            let started = ContinuousClock.now
            let health = try await offPool { () throws -> (bytes: [UInt8], closed: Bool) in
                let fd = try SlowClients.connect(port: port, from: "127.0.0.2", timeout: 2)
                defer { close(fd) }
                _ = SlowClients.send(fd, "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                return SlowClients.readUntilClosed(fd, deadline: started + .seconds(2))
            }
            let elapsed = ContinuousClock.now - started
            let text = String(decoding: health.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"), "/healthz after \(elapsed): \(text.isEmpty ? "no answer" : text)")
            #expect(text.hasSuffix("ok"), "\(text)")
            #expect(elapsed < .seconds(2), "/healthz took \(elapsed)")

            // The server closes the connections over the per-address limit as it accepts them.
            let kept = try await offPool { () -> Int in
                let deadline = ContinuousClock.now + .seconds(10)
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
