import LivelineHTTPServer
import Testing

@Suite("HTTPRequest and HTTPResponse values")
struct HTTPRequestTests {
    @Test("header lookup ignores case and returns the first match; init lower-cases names")
    func headers() {
        let request = HTTPRequest(method: "GET", path: "/", headers: [(name: "X-Token", value: "a"), (name: "x-token", value: "b"), (name: "Accept", value: "*/*")])
        #expect(request.headers.map(\.name) == ["x-token", "x-token", "accept"])
        #expect(request.header("X-TOKEN") == "a")
        #expect(request.header("accept") == "*/*")
        #expect(request.header("x-tokens") == nil)
        #expect(request.header("x-toke") == nil)
    }

    @Test("query lookup is exact and returns the first match")
    func query() {
        let request = HTTPRequest(method: "GET", path: "/", query: [(name: "a", value: "1"), (name: "a", value: "2"), (name: "B", value: "3")])
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValue("b") == nil)
        #expect(request.queryValue("B") == "3")
        #expect(request.remoteAddress == "127.0.0.1:0")
        #expect(request.body.isEmpty)
    }

    @Test("json and text responses carry their content types and bytes")
    func responses() {
        let json = HTTPResponse.json(201, Array("{}".utf8))
        #expect(json.status == 201)
        #expect(json.headers.map(\.name) == ["content-type"])
        #expect(json.headers.map(\.value) == ["application/json"])
        #expect(json.body == Array("{}".utf8))
        let text = HTTPResponse.text(404, "não")
        #expect(text.headers.first?.value == "text/plain; charset=utf-8")
        #expect(text.body == Array("não".utf8))
        #expect(HTTPResponse.text(200, "<p>", contentType: "text/html").headers.first?.value == "text/html")
        #expect(HTTPResponse(status: 204).body.isEmpty)
    }
}
