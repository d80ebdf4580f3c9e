import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

/// A configuration with `pki`'s server certificate on 127.0.0.1 port 0, changed by `adjust`.
func serverConfiguration(_ pki: TestPKI, _ adjust: (inout HTTP2ServerConfiguration) -> Void = { _ in }) -> HTTP2ServerConfiguration {
    var configuration = HTTP2ServerConfiguration(
        identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path))
    adjust(&configuration)
    return configuration
}

/// Connects without idle pings and sends `request` as the connection's first. Under load the
/// server's short idle timeout can pass before the request is written (GOAWAY, last stream 0,
/// nothing processed); then it tries again on a new connection, up to 20 times.
func sendFirstRequest(_ server: HTTP2Server, _ pki: TestPKI, _ request: HTTP2Request) async throws -> (HTTP2Connection, HTTP2Response) {
    var configuration = clientConfiguration(pki)
    configuration.idlePingInterval = nil
    for attempt in 1...20 {
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
        switch await result(connection, request) {
        case .success(let response):
            return (connection, response)
        case .failure(let error):
            guard error.code == .goAway, error.goAway?.lastStreamID == 0, attempt < 20 else { throw error }
            await connection.close(drain: false)
        }
    }
    throw RawTLSError("unreachable")
}

@Suite("HTTP2Server hardening: limits, timeouts, fairness")
struct HTTP2ServerHardeningTests {
    @Test("a 10 MB body over the default 1 MiB limit gets 413 PayloadTooLarge; the connection then serves another request")
    func bodyTooLarge() async throws {
        let pki = try TestPKI.shared()
        let calls = Locked(0)
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki)) { request, responder in
            calls.withLock { $0 += 1 }
            responder.respond(status: 200, body: Array("\(request.body.count)".utf8))
        }
        let connection = try await connect(server, pki, requestTimeout: .seconds(60))
        let response = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abcd", body: Array(repeating: 7, count: 10_000_000)))
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText == #"{"reason":"PayloadTooLarge"}"#)
        let next = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abcd", body: Array(repeating: 7, count: 1000)))
        #expect(next.status == 200)
        #expect(next.bodyText == "1000")
        #expect(connection.isUsable)
        #expect(calls.withLock { $0 } == 1)
        await connection.close()
        await server.stop()
    }

    @Test("maxConnections 2: the third connection is closed during its handshake; once one closes, a new one is served")
    func connectionLimit() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.maxConnections = 2 }) { _, responder in
            responder.respond(status: 200)
        }
        let first = try await connect(server, pki)
        let second = try await connect(server, pki)
        #expect(try await first.send(HTTP2Request(path: "/")).status == 200)
        #expect(try await second.send(HTTP2Request(path: "/")).status == 200)
        await #expect(throws: HTTP2Error.self) {
            let third = try await connect(server, pki)
            await third.close()
        }
        #expect(server.acceptedConnections == 2)
        await first.close()
        try await until("the server to drop the closed connection from its list") { server.connections.count <= 1 }
        let fourth = try await connect(server, pki)
        #expect(try await fourth.send(HTTP2Request(path: "/")).status == 200)
        #expect(server.acceptedConnections == 3)
        await second.close()
        await fourth.close()
        await server.stop()
    }

    @Test("a connection that finishes TLS and then sends nothing gets GOAWAY(NO_ERROR) and is closed after idleTimeout")
    func idleAfterHandshake() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.idleTimeout = .milliseconds(200) }) { _, responder in
            responder.respond(status: 200)
        }
        let client = try RawTLSClient(port: server.port, receiveTimeout: .seconds(10))
        try client.handshake()
        let start = ContinuousClock.now
        let (bytes, closed) = await onOwnThread { client.readUntilClosed() }
        let elapsed = ContinuousClock.now - start
        #expect(closed, "the server closed the connection before the 10-second receive timeout")
        #expect(elapsed >= .milliseconds(150), "not before the idle timeout: \(elapsed)")
        let goAway = RawTLSClient.frames(bytes).first { $0.type == 7 }
        #expect(goAway != nil, "a GOAWAY came before the close")
        #expect(goAway.map { Array($0.payload[4..<8]) } == [0, 0, 0, 0], "GOAWAY NO_ERROR")
        await server.stop()
    }

    @Test("an HTTP/2 connection that goes quiet after a request is closed after idleTimeout with GOAWAY")
    func idleAfterRequest() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.idleTimeout = .seconds(1) }) { _, responder in
            responder.respond(status: 200)
        }
        let (connection, response) = try await sendFirstRequest(server, pki, HTTP2Request(path: "/"))
        #expect(response.status == 200)
        let reason = try await withDeadline("the connection to close") { await connection.closed() }
        #expect(reason?.code == .goAway)
        #expect(reason?.goAway?.errorCode == 0)
        #expect(reason?.goAway?.lastStreamID == 1)
        await server.stop()
    }

    @Test("a request awaiting a late answer keeps its connection open past idleTimeout")
    func idleWhileAnswerPending() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.idleTimeout = .seconds(1) }) { _, responder in
            responder.respond(status: 200, after: .seconds(3))
        }
        let (connection, response) = try await sendFirstRequest(server, pki, HTTP2Request(path: "/slow"))
        #expect(response.status == 200)
        await connection.close()
        await server.stop()
    }

    @Test("a TCP connection that never starts TLS is closed after handshakeTimeout")
    func handshakeTimeout() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.handshakeTimeout = .milliseconds(200) }) { _, responder in
            responder.respond(status: 200)
        }
        let client = try RawTLSClient(port: server.port, receiveTimeout: .seconds(10))
        let (bytes, closed) = await onOwnThread { client.readUntilClosed() }
        #expect(closed, "the server closed the connection before the 10-second receive timeout")
        #expect(bytes.isEmpty)
        #expect(server.acceptedConnections == 0)
        await server.stop()
    }

    @Test("a header list over maxHeaderListSize is answered 431 without reaching the handler; the connection stays usable")
    func headerListTooLarge() async throws {
        let pki = try TestPKI.shared()
        let calls = Locked(0)
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki) { $0.maxHeaderListSize = 1024 }) { _, responder in
            calls.withLock { $0 += 1 }
            responder.respond(status: 200)
        }
        let connection = try await connect(server, pki)
        let big = String(repeating: "x", count: 4000)
        let refused = try await connection.send(HTTP2Request(method: "POST", path: "/big", headers: ["x-big": big], body: Array(repeating: 1, count: 100)))
        #expect(refused.status == 431)
        let refusedWithoutBody = try await connection.send(HTTP2Request(path: "/big", headers: ["x-big": big]))
        #expect(refusedWithoutBody.status == 431)
        #expect(try await connection.send(HTTP2Request(path: "/small", headers: ["x-small": "1"])).status == 200)
        #expect(connection.isUsable)
        #expect(calls.withLock { $0 } == 1)
        await connection.close()
        await server.stop()
    }

    @Test("a client flooding the server with frames does not keep another client from being served")
    func floodingClientDoesNotStarveOthers() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki)) { request, responder in
            responder.respond(status: 200, body: Array(request.path.utf8))
        }
        let flooder = try RawTLSClient(port: server.port)
        try flooder.handshake()
        #expect(flooder.write(RawTLSClient.preface))
        // Connection-level WINDOW_UPDATE(1) frames: no answer is due, so nothing stops them.
        let frame: [UInt8] = [0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let chunk = Array((0..<(65536 / frame.count)).map { _ in frame }.joined())
        let written = Locked(0)
        let stop = Locked(false)
        let ended = Locked(false)
        let flood = Task {
            await onOwnThread {
                while !stop.withLock({ $0 }), flooder.write(chunk) {
                    written.withLock { $0 += chunk.count }
                }
                ended.withLock { $0 = true }
            }
        }
        // Whatever fails below, the flood stops (its thread would otherwise keep a core busy).
        defer {
            stop.withLock { $0 = true }
            flooder.shutdown()
        }
        // The flood keeps both cores busy: keep it short (a few requests) for the tests beside it.
        try await until("the flood to write 1 MiB") {
            let bytes = written.withLock { $0 }
            if bytes < 1 << 20, ended.withLock({ $0 }), !stop.withLock({ $0 }) {
                throw TestingError("the flood's write failed after \(bytes) bytes (the server closed the connection?)")
            }
            return bytes >= 1 << 20
        }
        let other = try await connect(server, pki, requestTimeout: .seconds(30))
        for index in 0..<3 {
            let response = try await other.send(HTTP2Request(path: "/\(index)"))
            #expect(response.status == 200 && response.bodyText == "/\(index)")
        }
        stop.withLock { $0 = true }
        flooder.shutdown()
        await flood.value
        await other.close()
        await server.stop()
    }
}
