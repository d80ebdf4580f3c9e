import Foundation
import LivelineHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer.stop: draining, grace and idempotence")
struct HTTPServerStopTests {
    @Test("stop() while a handler runs lets it answer (with Connection: close) within the grace period; requests that begin meanwhile get 503; afterwards the port refuses connections")
    func stopLetsRunningHandlerAnswer() async throws {
        let entered = Gate()
        let release = Gate()
        var configuration = HTTPServerConfiguration.forTests()
        configuration.threads = 2
        let server = try HTTPServer.start(configuration) { request in
            if request.path == "/hold" {
                entered.open()
                guard await release.wait() else { return .text(500, "release timed out") }
                return .text(200, "answered while stopping")
            }
            return .text(200, "probe")
        }
        let held = try await RawConnection.connect(port: server.port)
        async let heldResponse = held.exchange(get("/hold"))
        try await entered.require("the /hold handler to start")
        let probe = try await RawConnection.connect(port: server.port)
        #expect(try await probe.exchange(get("/probe"))?.text == "probe")

        let stopping = Task { await server.stop(grace: .seconds(60)) }
        // Probe the open keep-alive connection until stop() has begun: each round trip is
        // answered 200 before and 503 after.
        var shuttingDown: RawResponse?
        let probing = ContinuousClock.now
        while shuttingDown == nil {
            try #require(ContinuousClock.now - probing < .seconds(120), "stop() had not begun answering 503 after 120 s of probing")
            guard let response = try await probe.exchange(get("/probe")) else { break }
            if response.status == 503 { shuttingDown = response }
        }
        let refusal = try #require(shuttingDown)
        #expect(refusal.text == #"{"error":{"code":"shutting-down","message":"the server is shutting down; retry shortly"}}"#)
        #expect(refusal.header("connection")?.lowercased() == "close")

        release.open()
        let answer = try #require(try await heldResponse)
        #expect(answer.status == 200)
        #expect(answer.text == "answered while stopping")
        #expect(answer.header("connection")?.lowercased() == "close")
        await stopping.value
        #expect(throws: ClientError.self) { _ = try RawConnection.connect(port: server.port) }
    }

    @Test("a handler still running when the grace period ends does not hold stop(): its connection is closed and its late answer is dropped")
    func stopAfterGrace() async throws {
        let entered = Gate()
        let release = Gate()
        let returned = Gate()
        let server = try HTTPServer.start(HTTPServerConfiguration.forTests()) { _ in
            entered.open()
            _ = await release.wait()
            returned.open()
            return .text(200, "too late")
        }
        let held = try await RawConnection.connect(port: server.port)
        try await offPool { try held.send(get("/hold")) }
        try await entered.require("the /hold handler to start")
        await server.stop(grace: .milliseconds(50))
        // Closed without an answer, or answered 503 if libmicrohttpd sent it before closing.
        let response = try await offPool { try held.readResponse() }
        #expect(response == nil || response?.status == 503)
        release.open()
        try await returned.require("the late handler to return")
        #expect(throws: ClientError.self) { _ = try RawConnection.connect(port: server.port) }
    }

    @Test("stop() is idempotent: concurrent calls and a later call all return")
    func stopTwice() async throws {
        let server = try HTTPServer.start(HTTPServerConfiguration.forTests()) { _ in .text(200, "ok") }
        let result = try await curl(["\(server.url)/"])
        #expect(result.text == "ok")
        async let first: Void = server.stop()
        async let second: Void = server.stop()
        _ = await (first, second)
        await server.stop()
        #expect(throws: ClientError.self) { _ = try RawConnection.connect(port: server.port) }
    }

    @Test("stop() with idle keep-alive connections open returns without waiting for them")
    func stopWithIdleConnections() async throws {
        let server = try HTTPServer.start(HTTPServerConfiguration.forTests()) { _ in .text(200, "ok") }
        var connections: [RawConnection] = []
        for _ in 0..<3 {
            let connection = try await RawConnection.connect(port: server.port)
            #expect(try await connection.exchange(get("/"))?.text == "ok")
            connections.append(connection)
        }
        await server.stop(grace: .seconds(60))
        for connection in connections {
            #expect(try await offPool { try connection.readToEnd() }.isEmpty)
        }
    }
}
