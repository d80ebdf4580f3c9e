import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

@Suite("HTTP2Connection connect errors")
struct HTTP2ConnectionErrorTests {
    @Test("a TLS server without h2 fails with alpnRefused naming what it offered", arguments: ["nginx", "openssl"])
    func alpnRefused(kind: String) async throws {
        let pki = try TestPKI.shared()
        let server = kind == "nginx" ? try ServerProcess.nginx(pki: pki, http2: false) : try ServerProcess.opensslServer(pki: pki, alpn: "http/1.1")
        defer { server.stop() }
        await #expect {
            _ = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: clientConfiguration(pki))
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .alpnRefused && error.message.contains("http/1.1") && error.message.contains("h2")
        }
    }

    @Test("a server certificate from another CA fails verification, naming the CA file")
    func untrustedCA() async throws {
        let pki = try TestPKI.shared()
        let other = try await TestPKI.make()
        defer { other.remove() }
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        await #expect {
            _ = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: clientConfiguration(other))
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .certificateVerificationFailed && error.message.contains(other.caCertificate.path)
                && error.message.contains("unable to get local issuer certificate")
        }
    }

    @Test("the system trust store does not trust a test CA")
    func systemTrustRejectsTestCA() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        await #expect {
            _ = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: HTTP2ClientConfiguration(connectTimeout: .seconds(10)))
        } throws: { error in
            (error as? HTTP2Error)?.code == .certificateVerificationFailed && "\(error)".contains("system trust store")
        }
    }

    @Test("a name the certificate does not cover fails verification")
    func wrongName() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        var configuration = clientConfiguration(pki)
        configuration.serverName = "api.push.apple.com"
        await #expect {
            _ = try await HTTP2Connection.connect(host: "127.0.0.1", port: server.port, configuration: configuration)
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .certificateVerificationFailed && error.message.contains("api.push.apple.com") && error.message.contains("mismatch")
        }
    }

    @Test("an empty server name, or one cut short by a NUL byte, is refused: the connection is not made unchecked",
          arguments: ["empty", "NUL byte"])
    func serverNameRefused(problem: String) async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        var configuration = clientConfiguration(pki)
        configuration.serverName = ServerNameTests.uncheckable[problem]!
        await #expect {
            _ = try await HTTP2Connection.connect(host: "127.0.0.1", port: server.port, configuration: configuration)
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .invalidArgument && (error.message.hasPrefix("serverName is empty") || error.message.contains("NUL byte"))
        }
    }

    @Test("bad arguments are named", arguments: [
        ("", 443, "host is empty"),
        ("localhost", 0, "port 0 is outside 1...65535"),
        ("localhost", 70000, "port 70000 is outside 1...65535"),
    ])
    func badArguments(host: String, port: Int, message: String) async throws {
        await #expect {
            _ = try await HTTP2Connection.connect(host: host, port: port)
        } throws: { error in
            (error as? HTTP2Error)?.code == .invalidArgument && (error as? HTTP2Error)?.message == message
        }
    }

    @Test("a missing CA file is named")
    func missingCAFile() async throws {
        await #expect {
            _ = try await HTTP2Connection.connect(host: "localhost", port: 443, configuration: HTTP2ClientConfiguration(trust: .caFile("/nonexistent/ca.pem")))
        } throws: { error in
            (error as? HTTP2Error)?.code == .invalidArgument && "\(error)".contains("/nonexistent/ca.pem")
        }
    }

    @Test("a closed port fails with connectFailed naming the address")
    func connectRefused() async throws {
        let port = try ServerProcess.freePort()
        await #expect {
            _ = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: clientConfiguration(TestPKI.shared()))
        } throws: { error in
            (error as? HTTP2Error)?.code == .connectFailed && "\(error)".contains("127.0.0.1:\(port)") && "\(error)".contains("refused")
        }
    }

    @Test("a request with a bad header is refused before sending, naming the header")
    func badHeader() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: clientConfiguration(pki))
        for (request, fragment) in [
            (HTTP2Request(path: "/", headers: ["bad name": "x"]), "header name \"bad name\""),
            (HTTP2Request(path: "/", headers: ["apns-topic": "a\r\nb"]), "apns-topic contains NUL, CR or LF"),
            (HTTP2Request(path: "no-slash"), "path \"no-slash\""),
            (HTTP2Request(path: "/", headers: ["Connection": "close"]), "Connection is connection-specific"),
        ] {
            await #expect {
                _ = try await connection.send(request)
            } throws: { error in
                (error as? HTTP2Error)?.code == .invalidArgument && "\(error)".contains(fragment)
            }
        }
        await connection.close()
    }
}

@Suite("HTTP2Connection timeouts")
struct HTTP2ConnectionTimeoutTests {
    @Test("a frozen server (TCP accepted by the kernel, no TLS answer) fails with connectTimeout")
    func connectTimeout() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        server.pause()
        var configuration = clientConfiguration(pki)
        configuration.connectTimeout = .milliseconds(500)
        await #expect {
            _ = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
        } throws: { error in
            (error as? HTTP2Error)?.code == .connectTimeout && "\(error)".contains("localhost:\(server.port)")
        }
    }

    @Test("an idle connection to a frozen server is PINGed and closed with pingTimeout, failing in-flight requests")
    func idlePingTimeout() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki)
        defer { server.stop() }
        var configuration = clientConfiguration(pki)
        configuration.idlePingInterval = .milliseconds(100)
        configuration.pingTimeout = .milliseconds(300)
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: configuration)
        #expect(try await connection.ping() < .seconds(5))
        server.pause()
        async let inFlight = result(connection, HTTP2Request(path: "/stuck"))
        let reason = try await withDeadline("the connection to close") { await connection.closed() }
        #expect(reason?.code == .pingTimeout)
        let failure = await inFlight
        guard case .failure(let error) = failure else {
            Issue.record("the request to a frozen server succeeded")
            return
        }
        // Sent or still queued when the connection died, the request fails with the cause.
        #expect(error.code == .pingTimeout)
        server.resume()
    }
}
