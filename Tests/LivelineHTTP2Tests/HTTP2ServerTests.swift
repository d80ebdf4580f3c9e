import Foundation
import LivelineHTTP2
import LivelineTesting
import Synchronization
import Testing

/// A value behind a lock, shareable with handlers and tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Sends `request` and returns its result as a value.
func result(_ connection: HTTP2Connection, _ request: HTTP2Request) async -> Result<HTTP2Response, HTTP2Error> {
    do {
        return .success(try await connection.send(request))
    } catch {
        return .failure(error)
    }
}

/// A server on 127.0.0.1 port 0 with `pki`'s server certificate.
func startServer(
    _ pki: TestPKI,
    maxConcurrentStreams: Int = 100,
    clientCAFile: String? = nil,
    onConnection: (@Sendable (HTTP2ServerConnection) -> Void)? = nil,
    handler: @escaping HTTP2Server.Handler
) throws -> HTTP2Server {
    let configuration = HTTP2ServerConfiguration(
        identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path),
        maxConcurrentStreams: maxConcurrentStreams, clientCAFile: clientCAFile)
    return try HTTP2Server.start(configuration: configuration, onConnection: onConnection, handler: handler)
}

/// Connects a client to `server` trusting `pki`'s CA.
func connect(_ server: HTTP2Server, _ pki: TestPKI, requestTimeout: Duration = .seconds(10), identity: TLSIdentity? = nil) async throws -> HTTP2Connection {
    var configuration = clientConfiguration(pki, requestTimeout: requestTimeout)
    configuration.identity = identity
    return try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
}

@Suite("HTTP2Server with HTTP2Connection")
struct HTTP2ServerTests {
    @Test("a request with indexesPath false sends :path as a never-indexed literal; by default it may be indexed")
    func pathIndexing() async throws {
        let pki = try TestPKI.shared()
        let seen = Locked<[String: [String]]>([:])
        let server = try startServer(pki) { request, responder in
            seen.withLock { $0[request.path] = request.neverIndexedFields }
            responder.respond(status: 200)
        }
        let connection = try await connect(server, pki)
        let unique = "/3/device/" + String(repeating: "ab", count: 32)
        _ = try await connection.send(HTTP2Request(method: "POST", path: unique, headers: ["apns-topic": "t"], indexesPath: false))
        _ = try await connection.send(HTTP2Request(method: "POST", path: "/repeated", headers: ["apns-topic": "t"]))
        #expect(seen.withLock { $0[unique] } == [":path"])
        #expect(seen.withLock { $0["/repeated"] } == [])
        await connection.close()
        await server.stop()
    }

    @Test("a POST round-trips method, path, authority, headers and body both ways")
    func roundTrip() async throws {
        let pki = try TestPKI.shared()
        let seen = Locked<HTTP2ServerRequest?>(nil)
        let server = try startServer(pki) { request, responder in
            seen.withLock { $0 = request }
            responder.respond(status: 201, headers: ["apns-id": "ID-\(request.streamID)", "X-Echo": request.headers["apns-topic"] ?? "-"],
                              body: Array("got \(request.body.count) bytes".utf8))
        }
        let connection = try await connect(server, pki)
        let body = Array("{\"aps\":{}}".utf8)
        let response = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abcd?x=1", headers: ["Apns-Topic": "com.example.app"], body: body))
        #expect(response.status == 201)
        #expect(response.headers["apns-id"] == "ID-\(response.streamID)")
        #expect(response.headers["x-echo"] == "com.example.app")
        #expect(response.bodyText == "got \(body.count) bytes")
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/abcd?x=1")
        #expect(request.authority == "localhost:\(server.port)")
        #expect(request.scheme == "https")
        #expect(request.headers.first("apns-topic") == "com.example.app")
        #expect(request.headers.fields.contains { $0.name == "apns-topic" }, "names are sent lower-case")
        #expect(request.body == body)
        #expect(request.connection.peerCertificate == nil)
        #expect(server.connections.map(\.id) == [request.connection.id])
        await connection.close()
        await server.stop()
    }

    @Test("2,000 concurrent requests on one connection each get their own answer")
    func concurrent() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { request, responder in
            responder.respond(status: 200, body: Array(request.path.utf8))
        }
        let connection = try await connect(server, pki)
        let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<2000 {
                group.addTask {
                    let path = "/item/\(index)"
                    let response = try await connection.send(HTTP2Request(method: "POST", path: path, body: Array(repeating: 1, count: 300)))
                    return response.bodyText != path || response.status != 200
                }
            }
            var count = 0
            for try await mismatch in group where mismatch { count += 1 }
            return count
        }
        #expect(mismatches == 0)
        await connection.close()
        await server.stop()
    }

    @Test("max concurrent streams 1, then raised to 5: the client never exceeds the current limit")
    func streamLimitRaised() async throws {
        let pki = try TestPKI.shared()
        struct Counts { var inFlight = 0, maxBeforeRaise = 0, maxAfterRaise = 0, raised = false }
        let counts = Locked(Counts())
        let server = try startServer(pki, onConnection: { $0.setMaxConcurrentStreams(1) }) { request, responder in
            let raiseNow = counts.withLock { counts -> Bool in
                counts.inFlight += 1
                if counts.raised {
                    counts.maxAfterRaise = max(counts.maxAfterRaise, counts.inFlight)
                    return false
                }
                counts.maxBeforeRaise = max(counts.maxBeforeRaise, counts.inFlight)
                return request.path == "/3"
            }
            if raiseNow {
                counts.withLock { $0.raised = true }
                request.connection.setMaxConcurrentStreams(5)
            }
            Task {
                // The behaviour under test: each request is held 20 ms so requests overlap and the
                // number in flight shows the limit (not a wait for anything).
                try? await Task.sleep(for: .milliseconds(20))
                counts.withLock { $0.inFlight -= 1 }
                responder.respond(status: 200)
            }
        }
        // Requests queue behind a limit of 1, and the queueing counts against each one's deadline:
        // generous, so a loaded machine does not turn a wait into a timeout.
        let connection = try await connect(server, pki, requestTimeout: .seconds(120))
        #expect(connection.maxConcurrentStreams == 1)
        // Sequential first, so /3 is known to arrive while the limit is 1.
        for index in 1...3 {
            #expect(try await connection.send(HTTP2Request(path: "/\(index)")).status == 200)
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 4..<40 {
                group.addTask { try await connection.send(HTTP2Request(path: "/\(index)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 36 && statuses.allSatisfy { $0 == 200 })
        #expect(connection.maxConcurrentStreams == 5)
        let final = counts.withLock { $0 }
        #expect(final.maxBeforeRaise == 1)
        #expect(final.maxAfterRaise > 1 && final.maxAfterRaise <= 5, "max in flight after the raise: \(final.maxAfterRaise)")
        await connection.close()
        await server.stop()
    }

    @Test("a limit lowered to 1 (as APNs does after a rejection) is honoured by the next requests")
    func streamLimitLowered() async throws {
        let pki = try TestPKI.shared()
        struct Counts { var inFlight = 0, maxInFlight = 0, lowered = false }
        let counts = Locked(Counts())
        let server = try startServer(pki, maxConcurrentStreams: 50) { request, responder in
            if request.path == "/reject" {
                // The SETTINGS frame goes out before this response, so the client knows the new
                // limit before it sees the answer.
                request.connection.setMaxConcurrentStreams(1)
                counts.withLock { $0.lowered = true }
                responder.respond(status: 400, body: Array("{\"reason\":\"BadDeviceToken\"}".utf8))
                return
            }
            counts.withLock { counts in
                counts.inFlight += 1
                counts.maxInFlight = max(counts.maxInFlight, counts.inFlight)
            }
            Task {
                // The behaviour under test: each request is held 5 ms so requests overlap.
                try? await Task.sleep(for: .milliseconds(5))
                counts.withLock { $0.inFlight -= 1 }
                responder.respond(status: 200)
            }
        }
        // Requests queue behind a limit of 1, and the queueing counts against each one's deadline:
        // generous, so a loaded machine does not turn a wait into a timeout.
        let connection = try await connect(server, pki, requestTimeout: .seconds(120))
        #expect(connection.maxConcurrentStreams == 50)
        #expect(try await connection.send(HTTP2Request(method: "POST", path: "/reject", body: [1])).status == 400)
        #expect(connection.maxConcurrentStreams == 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { try await connection.send(HTTP2Request(method: "POST", path: "/\(index)", body: [1])).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 20 && statuses.allSatisfy { $0 == 200 })
        #expect(counts.withLock { $0.maxInFlight } == 1)
        await connection.close()
        await server.stop()
    }

    @Test("RST_STREAM(REFUSED_STREAM) is reported as retryable refusedStream; the connection stays usable")
    func refusedStream() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { request, responder in
            if request.path == "/refuse" { responder.refuse() } else { responder.respond(status: 200) }
        }
        let connection = try await connect(server, pki)
        await #expect {
            _ = try await connection.send(HTTP2Request(method: "POST", path: "/refuse", body: [1, 2, 3]))
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .refusedStream && error.isRetryable && error.http2ErrorCode == 7 && error.message.contains("/refuse")
        }
        #expect(try await connection.send(HTTP2Request(path: "/ok")).status == 200)
        #expect(connection.isUsable)
        await connection.close()
        await server.stop()
    }

    @Test("other stream resets are reported as non-retryable streamReset with the code name")
    func streamReset() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { _, responder in responder.reset(errorCode: 2) }
        let connection = try await connect(server, pki)
        await #expect {
            _ = try await connection.send(HTTP2Request(path: "/x"))
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .streamReset && !error.isRetryable && error.message.contains("INTERNAL_ERROR")
        }
        await connection.close()
        await server.stop()
    }

    @Test("GOAWAY mid-load: streams up to the last stream ID complete, the rest fail as retryable with the debug data")
    func goAwayMidLoad() async throws {
        let pki = try TestPKI.shared()
        let received = Locked(0)
        let server = try startServer(pki) { request, responder in
            if request.streamID <= 9 { responder.respond(status: 200) }
            let count = received.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 10 {
                request.connection.goAway(lastStreamID: 9, errorCode: 0, debugData: Array("{\"reason\":\"Shutdown\"}".utf8))
            }
        }
        let connection = try await connect(server, pki)
        let results = await withTaskGroup(of: Result<HTTP2Response, HTTP2Error>.self) { group in
            for index in 0..<10 {
                group.addTask { await result(connection, HTTP2Request(method: "POST", path: "/3/device/\(index)", body: [1])) }
            }
            return await group.reduce(into: [Result<HTTP2Response, HTTP2Error>]()) { $0.append($1) }
        }
        let succeeded = results.compactMap { try? $0.get() }
        let failed = results.compactMap { result -> HTTP2Error? in if case .failure(let error) = result { error } else { nil } }
        #expect(succeeded.count == 5)
        #expect(succeeded.allSatisfy { $0.streamID <= 9 && $0.status == 200 })
        #expect(failed.count == 5)
        for error in failed {
            #expect(error.code == .goAway)
            #expect(error.isRetryable)
            #expect(error.goAway?.lastStreamID == 9)
            #expect(error.goAway?.debugText == "{\"reason\":\"Shutdown\"}")
        }
        let reason = try await withDeadline("the connection to close") { await connection.closed() }
        #expect(reason?.code == .goAway)
        #expect(!connection.isUsable)
        await #expect {
            _ = try await connection.send(HTTP2Request(path: "/after"))
        } throws: { error in
            (error as? HTTP2Error)?.isRetryable == true
        }
        await server.stop()
    }

    @Test("a dropped connection fails in-flight requests with non-retryable connectionClosed")
    func droppedMidStream() async throws {
        let pki = try TestPKI.shared()
        let held = Locked(0)
        let server = try startServer(pki) { request, _ in
            // Hold every request; drop the connection when the third arrives.
            let count = held.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 3 { request.connection.drop() }
        }
        let connection = try await connect(server, pki)
        let errors = await withTaskGroup(of: HTTP2Error?.self) { group in
            for index in 0..<3 {
                group.addTask {
                    if case .failure(let error) = await result(connection, HTTP2Request(path: "/\(index)")) { return error }
                    return nil
                }
            }
            return await group.reduce(into: [HTTP2Error?]()) { $0.append($1) }
        }
        #expect(errors.count == 3)
        for error in errors {
            #expect(error?.code == .connectionClosed)
            #expect(error?.isRetryable == false)
        }
        #expect(try await withDeadline("the connection to close") { await connection.closed() }?.code == .connectionClosed)
        await server.stop()
    }

    @Test("a server slower than the request deadline gives a timeout error; the connection stays usable")
    func slowServerTimeout() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { request, responder in
            responder.respond(status: 200, after: request.path == "/slow" ? .seconds(3) : nil)
        }
        let connection = try await connect(server, pki)
        await #expect {
            _ = try await connection.send(HTTP2Request(path: "/slow", timeout: .milliseconds(200)))
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .timeout && !error.isRetryable && error.message.contains("/slow") && error.message.contains("0.2 seconds")
        }
        #expect(try await connection.send(HTTP2Request(path: "/fast")).status == 200)
        #expect(connection.isUsable)
        await connection.close()
        await server.stop()
    }

    @Test("client certificates: the handler sees the subject UID and team; token clients have none")
    func clientCertificate() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki, clientCAFile: pki.caCertificate.path) { request, responder in
            let certificate = request.connection.peerCertificate
            responder.respond(status: 200, body: Array("\(certificate?.userID ?? "none")|\(certificate?.organizationalUnit ?? "none")".utf8))
        }
        let withCertificate = try await connect(server, pki, identity: TLSIdentity(certificateFile: pki.clientCertificate.path, keyFile: pki.clientKey.path))
        #expect(try await withCertificate.send(HTTP2Request(path: "/")).bodyText == "\(pki.clientTopic)|\(pki.teamID)")
        let withoutCertificate = try await connect(server, pki)
        #expect(try await withoutCertificate.send(HTTP2Request(path: "/")).bodyText == "none|none")
        let subject = try #require(server.connections.first?.peerCertificate?.subject)
        #expect(subject.contains("UID=\(pki.clientTopic)"))
        await withCertificate.close()
        await withoutCertificate.close()
        await server.stop()
    }

    @Test("PING returns a round-trip time")
    func ping() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { _, responder in responder.respond(status: 200) }
        let connection = try await connect(server, pki)
        let rtt = try await connection.ping()
        #expect(rtt > .zero && rtt < .seconds(5))
        await connection.close()
        await #expect {
            _ = try await connection.ping()
        } throws: { ($0 as? HTTP2Error)?.code == .closed }
        await server.stop()
    }

    @Test("close(drain: true) finishes in-flight requests; requests after it fail as retryable closed")
    func drainOnClose() async throws {
        let pki = try TestPKI.shared()
        let arrived = Locked(0)
        let server = try startServer(pki) { _, responder in
            arrived.withLock { $0 += 1 }
            responder.respond(status: 200, after: .milliseconds(100))
        }
        let connection = try await connect(server, pki)
        let inFlight = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 { group.addTask { try await connection.send(HTTP2Request(path: "/\(index)")).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        try await until("the 20 requests to reach the server") { arrived.withLock { $0 } >= 20 }
        await connection.close(drain: true)
        let statuses = try await inFlight.value
        #expect(statuses.count == 20 && statuses.allSatisfy { $0 == 200 })
        await #expect {
            _ = try await connection.send(HTTP2Request(path: "/late"))
        } throws: { error in
            (error as? HTTP2Error)?.code == .closed && (error as? HTTP2Error)?.isRetryable == true
        }
        await server.stop()
    }

    @Test("cancelling the task cancels the request with a cancelled error")
    func cancellation() async throws {
        let pki = try TestPKI.shared()
        let arrived = TestSignal()
        let server = try startServer(pki) { _, _ in arrived.signal() }
        let connection = try await connect(server, pki)
        let task = Task { try await connection.send(HTTP2Request(path: "/never")) }
        try await arrived.wait("the request to reach the server")
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { ($0 as? HTTP2Error)?.code == .cancelled }
        await connection.close(drain: false)
        await server.stop()
    }
}

@Suite("HTTP2Server and HTTP2Connection: bodies, limits, shutdown")
struct HTTP2ServerLimitTests {
    @Test("multi-megabyte bodies cross flow-control windows both ways intact")
    func largeBodies() async throws {
        let pki = try TestPKI.shared()
        let configuration = HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path), maxRequestBodySize: 8 << 20)
        let server = try HTTP2Server.start(configuration: configuration) { request, responder in
            responder.respond(status: 200, body: request.body.reversed() + request.body)
        }
        let connection = try await connect(server, pki)
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let response = try await connection.send(HTTP2Request(method: "POST", path: "/big", body: body))
        #expect(response.body.count == 2 * body.count)
        #expect(Array(response.body[body.count...]) == body)
        #expect(Array(response.body[..<body.count]) == body.reversed())
        await connection.close()
        await server.stop()
    }

    @Test("a request body over maxRequestBodySize is answered 413 PayloadTooLarge, never reaching the handler")
    func bodyLimit() async throws {
        let pki = try TestPKI.shared()
        let calls = Locked(0)
        let configuration = HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path), maxRequestBodySize: 1000)
        let server = try HTTP2Server.start(configuration: configuration) { _, responder in
            calls.withLock { $0 += 1 }
            responder.respond(status: 200)
        }
        let connection = try await connect(server, pki)
        let tooLarge = try await connection.send(HTTP2Request(method: "POST", path: "/", body: Array(repeating: 1, count: 1001)))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.bodyText == #"{"reason":"PayloadTooLarge"}"#)
        #expect(try await connection.send(HTTP2Request(method: "POST", path: "/", body: Array(repeating: 1, count: 1000))).status == 200)
        #expect(calls.withLock { $0 } == 1)
        await connection.close()
        await server.stop()
    }

    @Test("requests beyond maxQueuedRequests fail at once as retryable, naming the limit")
    func queueLimit() async throws {
        let pki = try TestPKI.shared()
        let held = Locked<[HTTP2ServerResponder]>([])
        let server = try startServer(pki, onConnection: { $0.setMaxConcurrentStreams(1) }) { _, responder in
            held.withLock { $0.append(responder) }
        }
        var configuration = clientConfiguration(pki)
        configuration.maxQueuedRequests = 2
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
        let results = Locked<[Result<HTTP2Response, HTTP2Error>]>([])
        for index in 0..<4 {
            connection.send(HTTP2Request(path: "/\(index)")) { result in results.withLock { $0.append(result) } }
        }
        // Three fit (two queued, one whose stream may already be open); the fourth is refused.
        let refused = results.withLock { $0 }.compactMap { result -> HTTP2Error? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(refused.count >= 1)
        #expect(refused.allSatisfy { $0.isRetryable && $0.message.contains("maxQueuedRequests") && $0.message.contains("2") })
        await connection.close(drain: false)
        await server.stop()
    }

    @Test("stopping the server closes client connections with a GOAWAY")
    func serverStop() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { _, responder in responder.respond(status: 200) }
        let connection = try await connect(server, pki)
        #expect(try await connection.send(HTTP2Request(path: "/")).status == 200)
        await server.stop()
        let reason = try await withDeadline("the connection to close") { await connection.closed() }
        #expect(reason?.code == .goAway)
        #expect(reason?.goAway?.lastStreamID == 1)
        #expect(!connection.isUsable)
    }
}

@Suite("HTTP2Connection response limits")
struct HTTP2ConnectionResponseLimitTests {
    @Test("a response body over maxResponseBodySize resets the stream and names the limit; the connection stays usable")
    func responseLimit() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { request, responder in
            responder.respond(status: 200, body: Array(repeating: 7, count: request.path == "/big" ? 5000 : 4096))
        }
        var configuration = clientConfiguration(pki)
        configuration.maxResponseBodySize = 4096
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
        await #expect {
            _ = try await connection.send(HTTP2Request(path: "/big"))
        } throws: { error in
            (error as? HTTP2Error)?.code == .streamReset && "\(error)".contains("maxResponseBodySize (4096 bytes)")
        }
        #expect(try await connection.send(HTTP2Request(path: "/fits")).body.count == 4096)
        await connection.close()
        await server.stop()
    }
}
