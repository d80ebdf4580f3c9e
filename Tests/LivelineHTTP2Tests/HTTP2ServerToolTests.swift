import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

@Suite("HTTP2Server with reference clients")
struct HTTP2ServerToolTests {
    @Test("h2load drives 4,000 POSTs over 2 connections and all succeed")
    func h2load() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { request, responder in
            responder.respond(status: request.body.count == 300 ? 200 : 400, headers: ["apns-id": "\(request.streamID)"])
        }
        let bodyFile = pki.directory.appendingPathComponent("h2load-body-\(server.port).json")
        try Data(repeating: UInt8(ascii: "a"), count: 300).write(to: bodyFile)
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        let output = try await runTool("/usr/bin/h2load", ["-n", "4000", "-c", "2", "-m", "50", "-d", bodyFile.path, "https://127.0.0.1:\(server.port)/3/device/abc"])
        #expect(output.status == 0)
        #expect(output.output.contains("requests: 4000 total, 4000 started, 4000 done, 4000 succeeded, 0 failed, 0 errored"), "\(output.output)")
        #expect(output.output.contains("status codes: 4000 2xx"), "\(output.output)")
        #expect(server.acceptedConnections == 2)
        await server.stop()
    }

    @Test("a client offering only http/1.1 is refused with a no_application_protocol alert")
    func alpnHTTP11Refused() async throws {
        let pki = try TestPKI.shared()
        let server = try startServer(pki) { _, responder in responder.respond(status: 200) }
        let output = try await runTool(TestPKI.opensslPath, ["s_client", "-connect", "127.0.0.1:\(server.port)", "-alpn", "http/1.1", "-CAfile", pki.caCertificate.path])
        #expect(output.status != 0)
        #expect(output.output.contains("no application protocol"), "\(output.output)")
        #expect(server.acceptedConnections == 0)
        await server.stop()
    }

    @Test("whenClosed runs when the client goes away, and the connection leaves the list")
    func connectionClosedHook() async throws {
        let pki = try TestPKI.shared()
        let closed = Locked<[UInt64]>([])
        let server = try startServer(pki, onConnection: { connection in
            connection.whenClosed { closed.withLock { $0.append(connection.id) } }
        }) { _, responder in responder.respond(status: 200) }
        let connection = try await connect(server, pki)
        #expect(try await connection.send(HTTP2Request(path: "/")).status == 200)
        let id = try #require(server.connections.first?.id)
        #expect(server.connections.first?.isOpen == true)
        await connection.close()
        // The server notices the close on its own loop; wait for that signal with a deadline.
        try await until("whenClosed to run") { !closed.withLock { $0 }.isEmpty }
        #expect(closed.withLock { $0 } == [id])
        #expect(server.connections.isEmpty)
        await server.stop()
    }
}
