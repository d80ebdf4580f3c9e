import Foundation
import LivelineHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: requests and responses over real connections")
struct HTTPServerTests {
    @Test("a GET with a query and headers reaches the handler with method, raw path, decoded query in order, lower-case headers and the peer address")
    func getWithQueryAndHeaders() async throws {
        let seen = Recorder<HTTPRequest>()
        try await withServer(handler: { request in
            seen.append(request)
            return .json(200, Array(#"{"ok":true}"#.utf8))
        }) { server in
            let result = try await curl(["-H", "X-Trace-ID: abc-123", "-H", "Accept: application/json",
                                         "\(server.url)/v1/activities/a%20b/42?limit=10&name=caf%C3%A9+au+lait&flag&limit=20"])
            #expect(result.exitCode == 0)
            #expect(result.status == 200)
            #expect(result.header("content-type") == "application/json")
            #expect(result.text == #"{"ok":true}"#)
        }
        let request = try #require(seen.all.first)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/activities/a b/42")
        #expect(request.query.map(\.name) == ["limit", "name", "flag", "limit"])
        #expect(request.query.map(\.value) == ["10", "café au lait", "", "20"])
        #expect(request.queryValue("limit") == "10")
        #expect(request.queryValue("missing") == nil)
        #expect(request.header("x-trace-id") == "abc-123")
        #expect(request.header("X-Trace-ID") == "abc-123")
        #expect(request.header("accept") == "application/json")
        #expect(request.header("host")?.hasPrefix("127.0.0.1:") == true)
        #expect(request.headers.allSatisfy { $0.name == $0.name.lowercased() })
        #expect(request.headers.map(\.name).firstIndex(of: "x-trace-id")! < request.headers.map(\.name).firstIndex(of: "accept")!)
        #expect(request.body.isEmpty)
        #expect(request.remoteAddress.hasPrefix("127.0.0.1:"))
        #expect(Int(request.remoteAddress.split(separator: ":").last ?? "") ?? 0 > 0)
    }

    @Test("a PUT body (binary, 200 KB) reaches the handler whole and comes back in the response")
    func putEchoesBody() async throws {
        let payload = patternBytes(200_000)
        let methods = Recorder<String>()
        try await withServer(handler: { request in
            methods.append(request.method)
            return HTTPResponse(status: 201, headers: [(name: "content-type", value: "application/octet-stream"),
                                                       (name: "x-length", value: String(request.body.count))],
                                body: request.body)
        }) { server in
            try await withTemporaryFile(payload) { path in
                let result = try await curl(["-X", "PUT", "--data-binary", "@\(path)", "-H", "Content-Type: application/octet-stream",
                                             "\(server.url)/upload"])
                #expect(result.status == 201)
                #expect(result.header("x-length") == "200000")
                #expect(result.header("content-length") == "200000")
                #expect(result.body == payload)
            }
        }
        #expect(methods.all == ["PUT"])
    }

    @Test("a chunked upload (curl, and hand-made chunks of odd sizes) reaches the handler as one body")
    func chunkedUpload() async throws {
        let payload = patternBytes(70_001)
        try await withServer(handler: { request in
            .json(200, Array("{\"bytes\":\(request.body.count),\"chunked\":\(request.header("transfer-encoding") == "chunked")}".utf8))
        }) { server in
            try await withTemporaryFile(payload) { path in
                let result = try await curl(["-X", "POST", "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(path)", "\(server.url)/chunks"])
                #expect(result.status == 200)
                #expect(result.text == #"{"bytes":70001,"chunked":true}"#)
            }
            let connection = try await RawConnection.connect(port: server.port)
            let pieces = [patternBytes(1), patternBytes(4095), patternBytes(33_000), patternBytes(7)]
            var request = Array("POST /chunks HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for piece in pieces {
                request += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
            }
            request += Array("0\r\n\r\n".utf8)
            let bytes = request
            let response = try await offPool {
                try connection.send(bytes)
                return try connection.readResponse()
            }
            #expect(response?.status == 200)
            #expect(response?.text == #"{"bytes":37103,"chunked":true}"#)
        }
    }

    @Test("a handler that awaits (Task.sleep) is answered after its await")
    func awaitingHandler() async throws {
        try await withServer(handler: { request in
            try? await Task.sleep(for: .milliseconds(50))
            return .text(200, "slept for \(request.path)")
        }) { server in
            let result = try await curl(["\(server.url)/nap"])
            #expect(result.status == 200)
            #expect(result.text == "slept for /nap")
            #expect(result.header("content-type") == "text/plain; charset=utf-8")
        }
    }

    @Test("one libmicrohttpd thread serves a second request while the first request's handler waits for it: the first waits on a continuation the second resumes")
    func handlersRunConcurrently() async throws {
        let firstEntered = Gate()
        let release = Gate()
        try await withServer({ $0.threads = 1 }, handler: { request in
            switch request.path {
            case "/first":
                firstEntered.open()
                guard await release.wait() else { return .text(500, "release timed out") }
                return .text(200, "first done")
            default:
                release.open()
                return .text(200, "second done")
            }
        }) { server in
            let first = try await RawConnection.connect(port: server.port)
            async let firstResponse = first.exchange(get("/first"))
            try await firstEntered.require("the first handler to start")
            let second = try await RawConnection.connect(port: server.port)
            let secondResponse = try await second.exchange(get("/second"))
            #expect(secondResponse?.text == "second done")
            #expect(try await firstResponse?.text == "first done")
        }
    }

    @Test("200 sequential requests on one keep-alive connection are all answered, all from the same client port")
    func keepAlive() async throws {
        let peers = Recorder<String>()
        try await withServer(handler: { request in
            peers.append(request.remoteAddress)
            return .json(200, Array("{\"n\":\(request.queryValue("n") ?? "")}".utf8))
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let bodies = try await offPool { () throws -> [String] in
                try (0..<200).map { index in
                    try connection.send(get("/count?n=\(index)"))
                    guard let response = try connection.readResponse() else { throw ClientError(description: "closed at request \(index)") }
                    return "\(response.status) \(response.text)"
                }
            }
            #expect(bodies == (0..<200).map { "200 {\"n\":\($0)}" })
        }
        #expect(peers.count == 200)
        #expect(Set(peers.all).count == 1)
    }

    @Test("HEAD gets the headers (with the GET length) and no body; the connection stays usable")
    func head() async throws {
        try await withServer(handler: { request in
            .text(200, "twelve bytes")
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let head = try await connection.exchange("HEAD /x HTTP/1.1\r\nHost: test\r\n\r\n", forHead: true)
            #expect(head?.status == 200)
            #expect(head?.header("content-length") == "12")
            let next = try await connection.exchange(get("/x"))
            #expect(next?.text == "twelve bytes")
        }
    }

    @Test("a client's Connection: close gets its answer and then the server closes the connection")
    func clientConnectionClose() async throws {
        try await withServer(handler: { _ in .text(200, "bye") }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let response = try await connection.exchange(get("/", "Connection: close\r\n"))
            #expect(response?.text == "bye")
            let rest = try await offPool { try connection.readToEnd() }
            #expect(rest.isEmpty)
        }
    }

    @Test("a status outside 100...999 is sent as 500; headers libmicrohttpd refuses are left out")
    func badStatusAndHeaders() async throws {
        try await withServer(handler: { _ in
            HTTPResponse(status: 42, headers: [(name: "x-bad", value: "a\r\nInjected: yes"), (name: "x-good", value: "1")], body: [])
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let response = try await connection.exchange(get("/"))
            #expect(response?.status == 500)
            #expect(response?.header("x-good") == "1")
            #expect(response?.header("injected") == nil)
            #expect(response?.header("x-bad") == nil)
        }
    }

    @Test("IPv6 loopback: the URL brackets the address and the peer address is [::1]:port")
    func ipv6() async throws {
        let peers = Recorder<String>()
        try await withServer({ $0.host = "::1" }, handler: { request in
            peers.append(request.remoteAddress)
            return .text(200, "v6")
        }) { server in
            #expect(server.url == "http://[::1]:\(server.port)")
            let result = try await curl(["-g", "\(server.url)/"])
            #expect(result.text == "v6")
        }
        #expect(peers.all.first?.hasPrefix("[::1]:") == true)
    }
}
