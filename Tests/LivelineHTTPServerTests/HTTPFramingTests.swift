import Foundation
import LivelineHTTPServer
import Synchronization
import Testing

/// Hostile request heads, sent as raw bytes: each is refused with 400 and `Connection: close`,
/// the connection is closed (nothing after the refusal is read as a request), and the handler is
/// never called. Each case has a sound twin that the same server answers 200, so a check that
/// refused everything would fail too.
@Suite("HTTPServer: request framing (smuggling, NUL, Host, encoded slashes)")
struct HTTPFramingTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var hostile: [UInt8]
        var sound: [UInt8]
        var message: String
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A second request pipelined after the hostile one: it must never be answered.
    static let smuggled = bytes("GET /smuggled HTTP/1.1\r\nHost: test\r\n\r\n")

    static let cases: [Case] = [
        Case(description: "Content-Length and Transfer-Encoding together",
             hostile: bytes("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
             sound: bytes("POST /a HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
             message: "both Content-Length and Transfer-Encoding"),
        Case(description: "two different Content-Lengths",
             hostile: bytes("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde"),
             sound: bytes("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nabcde"),
             message: "more than one Content-Length"),
        Case(description: "the same Content-Length twice",
             hostile: bytes("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
             sound: bytes("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc"),
             message: "more than one Content-Length"),
        Case(description: "a Transfer-Encoding other than chunked",
             hostile: bytes("POST /a HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
             sound: bytes("POST /a HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n"),
             message: "Transfer-Encoding accepted is a single chunked"),
        Case(description: "a space before a header's colon",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name : value\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: value\r\n\r\n"),
             message: "whitespace before its colon"),
        Case(description: "a tab before a header's colon",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nTransfer-Encoding\t: chunked\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name:\tvalue\r\n\r\n"),
             message: "whitespace before its colon"),
        Case(description: "a NUL byte in a header value",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: good\u{0}bad\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: goodbad\r\n\r\n"),
             message: "NUL byte"),
        Case(description: "a NUL byte in the Host value",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: 127.0.0.1\u{0}.rebind.example\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
             message: "NUL byte"),
        Case(description: "another control character in a header value",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: a\u{1}b\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: a\tb\r\n\r\n"),
             message: "control character"),
        Case(description: "a raw NUL byte in the path",
             hostile: bytes("GET /admin\u{0}/public HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /admin/public HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "NUL byte"),
        Case(description: "%00 in the path",
             hostile: bytes("GET /a%00b/c HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /a%41b/c HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "encoded control character"),
        Case(description: "an encoded control character in the path",
             hostile: bytes("GET /a%0Ab HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /a%20b HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "encoded control character"),
        Case(description: "an encoded slash in the path",
             hostile: bytes("GET /v1/devices/a%2Fb/tokens HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /v1/devices/a%2Db/tokens HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "encoded slash (%2F)"),
        Case(description: "a lower-case encoded slash in the path",
             hostile: bytes("GET /a%2fb HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /a/b HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "encoded slash (%2F)"),
        Case(description: "a malformed percent-escape in the path",
             hostile: bytes("GET /a%zzb HTTP/1.1\r\nHost: test\r\n\r\n"),
             sound: bytes("GET /a%25zzb HTTP/1.1\r\nHost: test\r\n\r\n"),
             message: "two-digit hexadecimal escape"),
        Case(description: "an HTTP/1.1 request without Host",
             hostile: bytes("GET /a HTTP/1.1\r\nX-Name: value\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.0\r\nX-Name: value\r\n\r\n"),
             message: "must have a Host header"),
        Case(description: "two Host headers",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nHost: other\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: other\r\n\r\n"),
             message: "more than one Host"),
        Case(description: "a header line ending in a bare LF",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\nX-Name: value\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: value\r\n\r\n"),
             message: "bare LF"),
        Case(description: "a folded header line",
             hostile: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: one\r\n two\r\n\r\n"),
             sound: bytes("GET /a HTTP/1.1\r\nHost: test\r\nX-Name: one two\r\n\r\n"),
             message: "folded header line"),
    ]

    @Test("a hostile head is refused with 400 and Connection: close, the connection is closed and the handler is not called; its sound twin is served", arguments: cases)
    func refused(_ testCase: Case) async throws {
        let calls = Recorder<String>()
        try await withServer(handler: { request in
            calls.append(request.path)
            return .text(200, "served \(request.path)")
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let hostile = testCase.hostile + Self.smuggled
            let (response, rest) = try await offPool { () throws -> (RawResponse?, [UInt8]) in
                try connection.send(hostile)
                let response = try connection.readResponse()
                return (response, try connection.readToEnd())
            }
            let refusal = try #require(response, "\(testCase): no answer")
            #expect(refusal.status == 400, "\(testCase): \(refusal.status) \(refusal.text)")
            #expect(refusal.header("connection")?.lowercased() == "close", "\(testCase)")
            #expect(refusal.text.contains(#""code":"malformed-request""#), "\(testCase): \(refusal.text)")
            #expect(refusal.text.contains(testCase.message), "\(testCase): \(refusal.text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(refusal.body))) != nil, "\(testCase): not JSON: \(refusal.text)")
            #expect(rest.isEmpty, "\(testCase): more came after the refusal: \(String(decoding: rest, as: UTF8.self))")
            #expect(calls.all.isEmpty, "\(testCase): the handler saw \(calls.all)")

            let twin = try await RawConnection.connect(port: server.port)
            let sound = testCase.sound
            let served = try await offPool { () throws -> RawResponse? in
                try twin.send(sound)
                return try twin.readResponse()
            }
            #expect(served?.status == 200, "\(testCase) (sound twin): \(served?.status ?? 0) \(served?.text ?? "")")
        }
    }

    @Test("the handler sees the path decoded once, exactly as sent: %20 and %25 decode, %2D stays inside its segment")
    func pathAsSent() async throws {
        let paths = Recorder<String>()
        try await withServer(handler: { request in
            paths.append(request.path)
            return .text(200, request.path)
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            for target in ["/v1/devices/a%20b/x", "/p%2541", "/caf%C3%A9?q=%2F"] {
                let response = try await connection.exchange(get(target))
                #expect(response?.status == 200, "\(target)")
            }
        }
        #expect(paths.all == ["/v1/devices/a b/x", "/p%41", "/café"])
    }

    static let soundHeads: [String] = [
        "GET /a HTTP/1.1\r\nHost:test\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: test   \r\nX-Empty:\r\nX-Tabs:\t\tv\t\r\n\r\n",
        "GET /a?q=%2F&r=%00&s HTTP/1.1\r\nhost: test\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\n",
        "POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: test\r\nX-Obs-Text: caf\u{E9}\r\nCookie: a=1; b=2\r\n\r\n",
    ]

    @Test("sound heads with unusual but legal spacing, empty values, a query with %2F and %00, HTTP/1.0 without Host and cookies are served", arguments: soundHeads.indices)
    func soundHeadsServed(_ index: Int) async throws {
        try await withServer(handler: { _ in .text(200, "served") }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let head = Self.soundHeads[index]
            let response = try await offPool { () throws -> RawResponse? in
                try connection.send(head)
                return try connection.readResponse()
            }
            #expect(response?.status == 200, "\(head.debugDescription): \(response?.status ?? 0) \(response?.text ?? "")")
        }
    }

    @Test("a sound head of 80 headers (24 KB) sent a line at a time is served with every header: the layout check holds while libmicrohttpd grows its buffer")
    func largeHeadInPieces() async throws {
        try await withServer(handler: { request in
            .text(200, "\(request.headers.filter { $0.name.hasPrefix("x-filler-") }.count) \(request.header("x-filler-79")?.count ?? 0)")
        }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let response = try await offPool { () throws -> RawResponse? in
                try connection.send("GET /big HTTP/1.1\r\nHost: test\r\n")
                for index in 0..<80 {
                    try connection.send("X-Filler-\(index): \(String(repeating: "v", count: 280))\r\n")
                }
                try connection.send("\r\n")
                return try connection.readResponse()
            }
            #expect(response?.status == 200, "\(response?.status ?? 0) \(response?.text ?? "")")
            #expect(response?.text == "80 280")
        }
    }

    @Test("a path that is not UTF-8 once decoded is refused instead of being repaired")
    func pathNotUTF8() async throws {
        try await withServer(handler: { _ in .text(200, "served") }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            let response = try await connection.exchange(get("/a%FFb"))
            #expect(response?.status == 400)
            #expect(response?.text.contains("not UTF-8") == true, "\(response?.text ?? "")")
        }
    }
}
