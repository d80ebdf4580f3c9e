import Foundation
import LivelineHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: streamed bodies (server-sent events)")
struct HTTPStreamTests {
    /// A server whose every request gets a fresh event stream, recorded for the test to write to.
    private func withStreamServer<R: Sendable>(bufferLimit: Int = 1 << 20, _ body: (HTTPServer, Recorder<HTTPBodyStream>) async throws -> R) async throws -> R {
        let streams = Recorder<HTTPBodyStream>()
        // No idle timeout: a starved test must not find its stream closed by libmicrohttpd.
        return try await withServer({ $0.connectionTimeout = .zero }, handler: { _ in
            let stream = HTTPBodyStream(bufferLimit: bufferLimit)
            streams.append(stream)
            return .eventStream(stream)
        }) { server in try await body(server, streams) }
    }

    @Test("each write reaches the client while the response is open; finish ends the chunked body")
    func piecesArriveAsWritten() async throws {
        try await withStreamServer { server, streams in
            let client = try await RawConnection.connect(port: server.port)
            let head = try await offPool { () -> String in
                try client.send(get("/events"))
                return try client.read(until: "\r\n\r\n")
            }
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-type: text/event-stream"))
            #expect(head.lowercased().contains("transfer-encoding: chunked"))
            #expect(!head.lowercased().contains("content-length"))
            let stream = try #require(streams.all.first)
            #expect(stream.write("data: one\n\n"))
            let first = try await offPool { try client.read(until: "data: one\n\n") }
            #expect(!first.contains("two"))
            #expect(stream.write("data: two\n\n"))
            _ = try await offPool { try client.read(until: "data: two\n\n") }
            stream.finish()
            _ = try await offPool { try client.read(until: "0\r\n\r\n") }
            #expect(!stream.write("data: late\n\n"))
        }
    }

    @Test("a client that goes away frees its stream: onClose runs and writes are refused")
    func closedClientFreesStream() async throws {
        try await withStreamServer { server, streams in
            let client = try await RawConnection.connect(port: server.port)
            _ = try await offPool { () -> String in
                try client.send(get("/events"))
                return try client.read(until: "\r\n\r\n")
            }
            let stream = try #require(streams.all.first)
            let closed = Gate()
            stream.onClose { closed.open() }
            client.close()
            // libmicrohttpd notices the closed socket when it sends: keep sending a comment line
            // (what an SSE server does as a heartbeat) until the stream reports it is closed.
            let deadline = ContinuousClock.now + .seconds(20)
            while !stream.isClosed && ContinuousClock.now < deadline {
                stream.write(": ping\n\n")
                _ = await closed.wait(for: .milliseconds(50))
            }
            #expect(stream.isClosed)
            #expect(!stream.write("data: after\n\n"))
        }
    }

    @Test("stop() ends open streams at once instead of waiting out the grace period")
    func stopEndsStreams() async throws {
        let streams = Recorder<HTTPBodyStream>()
        var configuration = HTTPServerConfiguration.forTests()
        configuration.connectionTimeout = .zero
        let server = try HTTPServer.start(configuration) { _ in
            let stream = HTTPBodyStream()
            streams.append(stream)
            return .eventStream(stream)
        }
        let client = try await RawConnection.connect(port: server.port)
        _ = try await offPool { () -> String in
            try client.send(get("/events"))
            return try client.read(until: "\r\n\r\n")
        }
        let started = ContinuousClock.now
        // Far below the grace period even when the test waits long for a cooperative thread.
        await server.stop(grace: .seconds(600))
        #expect(ContinuousClock.now - started < .seconds(120))
        let rest = try await offPool { try client.read(until: "0\r\n\r\n") }
        #expect(rest.hasSuffix("0\r\n\r\n"))
        #expect(streams.all.first?.isClosed == true)
    }

    @Test("a client that does not read is cut off when the backlog passes bufferLimit")
    func backlogOverLimitCloses() async throws {
        try await withStreamServer(bufferLimit: 1000) { server, streams in
            let client = try await RawConnection.connect(port: server.port)
            _ = try await offPool { () -> String in
                try client.send(get("/events"))
                return try client.read(until: "\r\n\r\n")
            }
            let stream = try #require(streams.all.first)
            let closed = Gate()
            stream.onClose { closed.open() }
            #expect(!stream.write([UInt8](repeating: 65, count: 2000)))
            #expect(await closed.wait(for: .seconds(20)))
            #expect(stream.isClosed)
            withExtendedLifetime(client) {}
        }
    }
}
