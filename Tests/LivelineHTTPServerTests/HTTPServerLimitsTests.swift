import Foundation
import LivelineHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: limits, bad clients and start errors")
struct HTTPServerLimitsTests {
    static let tooLarge1000 = #"{"error":{"code":"body-too-large","message":"request body is over the 1000-byte limit"}}"#

    @Test("a body with a Content-Length over maxBodyBytes is answered 413 with a JSON error before it is read; the handler is not called")
    func contentLengthOverLimit() async throws {
        let calls = Atomic<Int>(0)
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { request in
            calls.add(1, ordering: .relaxed)
            return .json(200, request.body)
        }) { server in
            try await withTemporaryFile(patternBytes(5000)) { path in
                let result = try await curl(["-X", "PUT", "--data-binary", "@\(path)", "\(server.url)/big"])
                #expect(result.status == 413)
                #expect(result.header("content-type") == "application/json")
                #expect(result.text == Self.tooLarge1000)
            }
            // Headers only, body never sent: the answer cannot have waited for it.
            let connection = try await RawConnection.connect(port: server.port)
            let response = try await connection.exchange("PUT /big HTTP/1.1\r\nHost: test\r\nContent-Length: 1000000000\r\n\r\n")
            #expect(response?.status == 413)
            #expect(response?.text == Self.tooLarge1000)
            let exact = try await withTemporaryFile(patternBytes(1000)) { path in
                try await curl(["-X", "PUT", "--data-binary", "@\(path)", "\(server.url)/exact"])
            }
            #expect(exact.status == 200)
            #expect(exact.body == patternBytes(1000))
        }
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("a chunked body that grows over maxBodyBytes is answered 413 once it ends; the handler is not called")
    func chunkedOverLimit() async throws {
        let calls = Atomic<Int>(0)
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { _ in
            calls.add(1, ordering: .relaxed)
            return .text(200, "called")
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            var request = Array("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<3 { request += Array("258\r\n".utf8) + patternBytes(600) + Array("\r\n".utf8) }
            request += Array("0\r\n\r\n".utf8)
            let bytes = request
            let response = try await offPool {
                try connection.send(bytes)
                return try connection.readResponse()
            }
            #expect(response?.status == 413)
            #expect(response?.text == Self.tooLarge1000)
            #expect(response?.header("connection")?.lowercased() == "close")
        }
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test("a chunked body far over the limit (past twice the limit plus 64 KiB) has its connection closed instead of being read to the end")
    func chunkedFarOverLimit() async throws {
        let calls = Atomic<Int>(0)
        try await withServer({ $0.maxBodyBytes = 1000 }, handler: { _ in
            calls.add(1, ordering: .relaxed)
            return .text(200, "called")
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let rest = try await offPool { () throws -> [UInt8] in
                try connection.send("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = Array("4000\r\n".utf8) + patternBytes(0x4000) + Array("\r\n".utf8)
                for _ in 0..<64 {
                    do { try connection.send(chunk) } catch { break }  // the server may close mid-way
                }
                return try connection.readToEnd()
            }
            #expect(!String(decoding: rest, as: UTF8.self).contains("called"))
            let next = try await curl(["\(server.url)/after"])
            #expect(next.text == "called")
        }
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("a client that disconnects while its handler runs does not crash the server; the handler's late answer is dropped and the server keeps serving")
    func disconnectWhileHandlerRuns() async throws {
        let entered = Recorder<Int>()
        let gates = (0..<5).map { _ in (entered: Gate(), release: Gate(), returned: Gate()) }
        try await withServer(handler: { request in
            guard let index = request.queryValue("i").flatMap(Int.init) else { return .text(200, "plain") }
            entered.append(index)
            gates[index].entered.open()
            guard await gates[index].release.wait() else { return .text(500, "release timed out") }
            gates[index].returned.open()
            return .text(200, "too late")
        }) { server in
            for index in gates.indices {
                let connection = try await RawConnection.connect(port: server.port)
                try await offPool { try connection.send(get("/slow?i=\(index)")) }
                try await gates[index].entered.require("handler \(index) to start")
                connection.close()
                gates[index].release.open()
                try await gates[index].returned.require("handler \(index) to return")
                let next = try await RawConnection.connect(port: server.port)
                let response = try await next.exchange(get("/plain"))
                #expect(response?.text == "plain")
            }
        }
        #expect(entered.all == [0, 1, 2, 3, 4])
    }

    @Test("a client that disconnects mid-upload frees its request without calling the handler")
    func disconnectMidUpload() async throws {
        let calls = Atomic<Int>(0)
        try await withServer(handler: { _ in
            calls.add(1, ordering: .relaxed)
            return .text(200, "ok")
        }) { server in
            for _ in 0..<5 {
                let connection = try await RawConnection.connect(port: server.port)
                try await offPool {
                    try connection.send("PUT /u HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n")
                    try connection.send(patternBytes(30_000))
                }
                connection.close()
            }
            let result = try await curl(["\(server.url)/after"])
            #expect(result.text == "ok")
        }
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("with connectionLimit 2, a third client waits in the accept queue until one of the two connections closes, then is served")
    func connectionLimit() async throws {
        let entered = [Gate(), Gate()]
        let release = [Gate(), Gate()]
        let firstReleased = Atomic<Bool>(false)
        let thirdSawFirstReleased = Recorder<Bool>()
        try await withServer({ $0.connectionLimit = 2; $0.threads = 1 }, handler: { request in
            if let index = request.queryValue("hold").flatMap(Int.init) {
                entered[index].open()
                guard await release[index].wait() else { return .text(500, "release \(index) timed out") }
                return .text(200, "held \(index)")
            }
            thirdSawFirstReleased.append(firstReleased.load(ordering: .acquiring))
            return .text(200, "third")
        }) { server in
            let first = try await RawConnection.connect(port: server.port)
            let second = try await RawConnection.connect(port: server.port)
            try await offPool {
                try first.send(get("/?hold=0", "Connection: close\r\n"))
                try second.send(get("/?hold=1"))
            }
            try await entered[0].require("the first held handler to start")
            try await entered[1].require("the second held handler to start")
            // TCP accepts the third connection into the backlog; libmicrohttpd must not.
            let third = try await RawConnection.connect(port: server.port)
            try await offPool { try third.send(get("/third")) }
            // A negative check: nothing may arrive while both slots are taken (this cannot fail
            // on a slow machine, only miss a broken limit on a very slow one).
            #expect(try await offPool { third.isReadable(withinMilliseconds: 300) } == false)
            #expect(thirdSawFirstReleased.count == 0)
            // The first client asked for Connection: close, so its slot frees once it is answered.
            firstReleased.store(true, ordering: .releasing)
            release[0].open()
            let firstResponse = try await offPool { try first.readResponse() }
            #expect(firstResponse?.text == "held 0")
            let thirdResponse = try await offPool { try third.readResponse() }
            #expect(thirdResponse?.text == "third")
            #expect(thirdSawFirstReleased.all == [true])
            release[1].open()
            let secondResponse = try await offPool { try second.readResponse() }
            #expect(secondResponse?.text == "held 1")
        }
    }

    @Test("binding a port that is already in use throws an error naming host:port and the system's reason")
    func portInUse() async throws {
        try await withServer(handler: { _ in .text(200, "first") }) { server in
            var configuration = HTTPServerConfiguration()
            configuration.port = server.port
            let error = #expect(throws: HTTPServerError.self) {
                _ = try HTTPServer.start(configuration) { _ in .text(200, "second") }
            }
            let message = error?.message ?? ""
            #expect(message.contains("cannot listen on 127.0.0.1:\(server.port)"), "\(message)")
            #expect(message.contains("Address already in use"), "\(message)")
            #expect(error?.description == message)
            let still = try await curl(["\(server.url)/"])
            #expect(still.text == "first")
        }
    }

    static let badConfigurations: [(String, @Sendable (inout HTTPServerConfiguration) -> Void, [String])] = [
        ("host name", { $0.host = "localhost" }, [#"host "localhost" is not an IPv4 or IPv6 address"#, "127.0.0.1"]),
        ("empty host", { $0.host = "" }, [#"host "" is not an IPv4 or IPv6 address"#]),
        ("address not on this machine", { $0.host = "192.0.2.1" }, ["cannot listen on 192.0.2.1:0", "Cannot assign requested address"]),
        ("port too large", { $0.port = 70000 }, ["port 70000 is outside 0...65535"]),
        ("negative port", { $0.port = -1 }, ["port -1 is outside 0...65535"]),
        ("no threads", { $0.threads = 0 }, ["threads 0 is outside 1...1024"]),
        ("fewer connections than threads", { $0.threads = 4; $0.connectionLimit = 3 }, ["connectionLimit 3 must be at least threads (4)"]),
        ("negative body limit", { $0.maxBodyBytes = -1 }, ["maxBodyBytes -1 must not be negative"]),
        ("tiny header memory", { $0.maxHeaderBytes = 100 }, ["maxHeaderBytes 100 is below 4096"]),
        ("negative timeout", { $0.connectionTimeout = .seconds(-1) }, ["connectionTimeout", "must not be negative"]),
    ]

    @Test("a bad configuration value throws a message naming the value and the limit", arguments: badConfigurations.indices)
    func badConfiguration(_ index: Int) throws {
        let (name, change, fragments) = Self.badConfigurations[index]
        var configuration = HTTPServerConfiguration()
        change(&configuration)
        let error = #expect(throws: HTTPServerError.self, "\(name)") {
            let server = try HTTPServer.start(configuration) { _ in .text(200, "") }
            Issue.record("started on \(server.url)")
        }
        for fragment in fragments {
            #expect(error?.message.contains(fragment) == true, "\(name): \(error?.message ?? "no error")")
        }
    }
}
