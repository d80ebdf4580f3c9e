import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

/// A client configuration trusting `pki`'s CA.
func clientConfiguration(_ pki: TestPKI, requestTimeout: Duration = .seconds(10)) -> HTTP2ClientConfiguration {
    HTTP2ClientConfiguration(trust: .caFile(pki.caCertificate.path), connectTimeout: .seconds(10), requestTimeout: requestTimeout)
}

@Suite("HTTP2Connection against reference servers")
struct HTTP2ConnectionReferenceTests {
    @Test("GET and POST against nghttpd return the file and 404", arguments: ["localhost", "127.0.0.1"])
    func nghttpd(host: String) async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nghttpd(pki: pki, files: ["hello.txt": "hello from nghttpd\n"])
        defer { server.stop() }
        let connection = try await HTTP2Connection.connect(host: host, port: server.port, configuration: clientConfiguration(pki))
        let response = try await connection.send(HTTP2Request(path: "/hello.txt"))
        #expect(response.status == 200)
        #expect(response.bodyText == "hello from nghttpd\n")
        #expect(response.headers["content-length"] == "19")
        let missing = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abc", body: Array("{}".utf8)))
        #expect(missing.status == 404)
        #expect(connection.maxConcurrentStreams == 100)
        await connection.close()
        #expect(!connection.isUsable)
    }

    @Test("1,000 concurrent POSTs against nginx all succeed within its stream limit")
    func nginxConcurrent() async throws {
        let pki = try TestPKI.shared()
        let server = try ServerProcess.nginx(pki: pki, maxConcurrentStreams: 50, body: "ok")
        defer { server.stop() }
        let connection = try await HTTP2Connection.connect(host: "localhost", port: server.port, configuration: clientConfiguration(pki))
        #expect(connection.maxConcurrentStreams == 50)
        let body = Array(repeating: UInt8(ascii: "x"), count: 300)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    try await connection.send(HTTP2Request(method: "POST", path: "/3/device/\(index)", headers: ["apns-topic": "com.example"], body: body)).status
                }
            }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == 200 })
        await connection.close()
    }
}
