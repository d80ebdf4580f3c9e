import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

/// Secrets and device tokens as LivelineHTTP2 renders them: never whole.
@Suite("LivelineHTTP2 redacts secrets and device tokens")
struct HTTP2RedactionTests {
    static let token = "0123abcd" + String(repeating: "ef", count: 28)
    static let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMyJ9.eyJpc3MiOiJERUYxMjMiLCJpYXQiOjE3NjQ0MjQ4MDB9.c2lnbmF0dXJl"
    static let devicePath = "/3/device/" + token
    static let shownPath = "/3/device/0123abcd…"

    /// Headers a provider sends, with every kind of secret.
    static let headers: HTTP2Headers = [
        "authorization": "bearer " + jwt, "apns-topic": "com.example.flights", "Cookie": "session=s3cr3t",
        "set-cookie": "id=abc; Path=/", "x-provider-token": "tok-123", "x-api-key": "k-456",
    ]
    static let secrets = [jwt, "s3cr3t", "id=abc", "tok-123", "k-456", String(token.prefix(9))]

    /// Every text form of `value` a log line, a debugger or a test failure may use.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    static func expectNoSecret(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts {
            for secret in secrets {
                #expect(!text.contains(secret), "\(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("a device-token path shows the token's first 8 characters; other paths are shown whole", arguments: [
        (devicePath, shownPath),
        (devicePath + "?x=1", shownPath),
        ("/3/device/abcdef12", "/3/device/abcdef12"),
        ("/3/device/", "/3/device/"),
        ("/4/broadcasts/apps/com.example.flights", "/4/broadcasts/apps/com.example.flights"),
    ])
    func paths(path: String, shown: String) {
        #expect(HTTP2Request(method: "POST", path: path).description == "POST \(shown)")
    }

    @Test("header values that are secrets are redacted in description, debugDescription and dump; lookups keep them")
    func headerText() {
        let headers = Self.headers
        #expect(headers.description == """
            authorization: bearer <redacted, \(Self.jwt.utf8.count) bytes>
            apns-topic: com.example.flights
            Cookie: <redacted, 14 bytes>
            set-cookie: <redacted, 14 bytes>
            x-provider-token: <redacted, 7 bytes>
            x-api-key: <redacted, 5 bytes>
            """)
        #expect(headers.debugDescription == headers.description)
        Self.expectNoSecret(Self.renderings(headers))
        #expect(headers["authorization"] == "bearer " + Self.jwt)
        #expect(headers.fields[2].value == "session=s3cr3t")
    }

    @Test("a request shows its method and redacted path; debugDescription and dump add redacted headers and the body size")
    func requestText() {
        let request = HTTP2Request(method: "POST", path: Self.devicePath, headers: Self.headers, body: Array("{}".utf8))
        #expect(request.description == "POST \(Self.shownPath)")
        #expect(request.debugDescription.hasPrefix("POST \(Self.shownPath) [authorization: bearer <redacted, "))
        #expect(request.debugDescription.hasSuffix("] 2-byte body"))
        Self.expectNoSecret(Self.renderings(request))
        Self.expectNoSecret(Self.renderings(HTTP2Response(status: 200, headers: Self.headers)))
    }

    @Test("a received request renders the same way")
    func serverRequestText() async throws {
        let pki = try TestPKI.shared()
        let texts = Locked<[String]>([])
        let server = try startServer(pki) { request, responder in
            texts.withLock { $0 = HTTP2RedactionTests.renderings(request) }
            responder.respond(status: 200)
        }
        let connection = try await connect(server, pki)
        _ = try await connection.send(HTTP2Request(method: "POST", path: Self.devicePath, headers: Self.headers))
        await connection.close()
        await server.stop()
        let rendered = texts.withLock { $0 }
        #expect(rendered.first == "POST \(Self.shownPath)")
        #expect(rendered.count == 3)
        Self.expectNoSecret(rendered)
    }

    @Test("transport errors name a device-token path by its 8-character prefix")
    func transportErrors() async throws {
        let pki = try TestPKI.shared()
        let held = Locked<[HTTP2ServerResponder]>([])
        // Never answers, so the request runs into its deadline on its stream.
        let server = try startServer(pki) { _, responder in held.withLock { $0.append(responder) } }
        let connection = try await connect(server, pki)
        let timedOut = await result(connection, HTTP2Request(method: "POST", path: Self.devicePath, headers: Self.headers, timeout: .milliseconds(200)))
        let badPath = await result(connection, HTTP2Request(method: "POST", path: Self.devicePath + " x"))
        // A request in flight: the connection's own text forms show none of it.
        connection.send(HTTP2Request(method: "POST", path: Self.devicePath, headers: Self.headers)) { _ in }
        Self.expectNoSecret(Self.renderings(connection))
        #expect("\(connection)" == "HTTP2Connection to localhost:\(server.port)")
        await connection.close(drain: false)
        await server.stop()
        guard case .failure(let timeout) = timedOut, case .failure(let invalid) = badPath else {
            Issue.record("expected two failures: \(timedOut), \(badPath)")
            return
        }
        #expect(timeout.code == .timeout)
        #expect(timeout.message.hasPrefix("POST \(Self.shownPath) to localhost:\(server.port) had no complete response within 0.2 seconds, on stream "))
        #expect(invalid.code == .invalidArgument)
        #expect(invalid.message == "path \"\(Self.shownPath)\" must start with / and contain no spaces or control characters")
        Self.expectNoSecret([timeout.message, invalid.message, "\(timeout)", "\(invalid)"])
    }
}
