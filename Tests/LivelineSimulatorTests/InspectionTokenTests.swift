import Foundation
import LivelineCore
import LivelineHTTP2
import LivelineSimulator
import LivelineTesting
import Testing

/// The inspection API shows full device tokens: with an inspection token configured it answers
/// only requests that carry it; on loopback without one it answers as before.
@Suite("Inspection API: bearer token beyond loopback")
struct InspectionTokenTests {
    static func start(token: String?) async throws -> (server: SimulatorServer, directory: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-inspect-\(UUID().uuidString.prefix(8))").path
        let made = try SimulatorSetup.generated(in: dir)
        let certificates = try await DedicatedThread.run(name: "certificates") { try SimulatorCertificates.prepare(in: dir) }
        let server = try SimulatorServer.start(simulator: try made.setup.makeSimulator(), certificates: certificates, inspectionToken: token)
        return (server, dir)
    }

    static func get(_ server: SimulatorServer, _ path: String, authorization: String?) async throws -> HTTP2Response {
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: server.port, configuration: HTTP2ClientConfiguration(trust: .caFile(server.caFile)))
        defer { Task { await connection.close() } }
        var headers: HTTP2Headers = [:]
        if let authorization { headers = ["authorization": authorization] }
        return try await connection.send(HTTP2Request(method: "GET", path: path, headers: headers))
    }

    @Test("with a token configured: 401 without it or with a wrong one, 200 with 'Bearer <token>'")
    func tokenRequired() async throws {
        let token = SimulatorServer.makeInspectionToken()
        #expect(token.utf8.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(SimulatorServer.makeInspectionToken() != token)
        let (server, dir) = try await Self.start(token: token)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let none = try await Self.get(server, "/simulator/v1/devices", authorization: nil)
        #expect(none.status == 401)
        #expect(none.headers["www-authenticate"] == "Bearer")
        #expect(none.bodyText.contains("needs 'authorization: Bearer <inspection token>'"))
        #expect(!none.bodyText.contains(token))
        #expect(try await Self.get(server, "/simulator/v1/devices", authorization: "Bearer " + String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")).status == 401)
        #expect(try await Self.get(server, "/simulator/v1/devices", authorization: token).status == 401)
        let ok = try await Self.get(server, "/simulator/v1/devices", authorization: "Bearer " + token)
        #expect(ok.status == 200)
        #expect(try JSONValue.parse(ok.body)[0]?["apps"]?[0]?["deviceToken"]?.stringValue?.count == 64)
        #expect(try await Self.get(server, "/simulator/v1/status", authorization: "bearer " + token).status == 200)
        // The client sends the token from the endpoint; without it, the 401 is the error.
        let endpoint = SimulatorInspectionClient.Endpoint(host: "127.0.0.1", port: server.port, caFile: server.caFile, inspectionToken: token)
        #expect(try await SimulatorInspectionClient.fetch("status", from: endpoint)["environment"] == "sandbox")
        var bare = endpoint
        bare.inspectionToken = nil
        await #expect(throws: SimulatorError.self) { try await SimulatorInspectionClient.fetch("status", from: bare) }
        // APNs routes do not need the inspection token.
        #expect(try await Self.get(server, "/3/device/00", authorization: nil).status != 401)
        await server.stop()
    }

    @Test("on loopback without a token the inspection API answers without authorization, as before")
    func loopbackWithoutToken() async throws {
        let (server, dir) = try await Self.start(token: nil)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try await Self.get(server, "/simulator/v1/status", authorization: nil).status == 200)
        #expect(try await Self.get(server, "/simulator/v1/nothing", authorization: nil).status == 404)
        await server.stop()
    }

    @Test("the endpoint file keeps the token, mode 0600, and the client reads it back")
    func endpointFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-endpoint-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = SimulatorInspectionClient.Endpoint.fileName(inStateDirectory: dir)
        // An older, world-readable file is replaced, not reused with its mode.
        _ = FileManager.default.createFile(atPath: path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644])
        let endpoint = SimulatorInspectionClient.Endpoint(host: "127.0.0.1", port: 2197, caFile: "/ca.pem", inspectionToken: "ab12")
        try endpoint.write(stateDirectory: dir)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try SimulatorInspectionClient.Endpoint(stateDirectory: dir) == endpoint)
        let local = SimulatorInspectionClient.Endpoint(host: "127.0.0.1", port: 2197, caFile: "/ca.pem")
        try local.write(stateDirectory: dir)
        #expect(try SimulatorInspectionClient.Endpoint(stateDirectory: dir).inspectionToken == nil)
    }
}
