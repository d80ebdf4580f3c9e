import LivelineHTTP2
import Testing

@Suite("HTTP2Headers")
struct HTTP2HeadersTests {
    @Test("lookups ignore case and return the first value; order and duplicates are kept")
    func lookups() {
        var headers: HTTP2Headers = ["apns-id": "A", "Set-Cookie": "1"]
        headers.add("set-cookie", "2")
        #expect(headers["APNS-ID"] == "A")
        #expect(headers.first("set-cookie") == "1")
        #expect(headers.values("SET-COOKIE") == ["1", "2"])
        #expect(headers.map(\.name) == ["apns-id", "Set-Cookie", "set-cookie"])
        #expect(headers["missing"] == nil)
    }

    @Test("assigning through the subscript replaces every field of that name; nil removes them")
    func subscriptSet() {
        var headers: HTTP2Headers = ["a": "1", "B": "2", "b": "3"]
        headers["b"] = "4"
        #expect(headers.fields.map { "\($0.name)=\($0.value)" } == ["a=1", "b=4"])
        headers["A"] = nil
        #expect(headers.fields.map { "\($0.name)=\($0.value)" } == ["b=4"])
    }

    @Test("equality compares fields in order")
    func equality() {
        let ab: HTTP2Headers = ["a": "1", "b": "2"]
        #expect(ab == HTTP2Headers([(name: "a", value: "1"), (name: "b", value: "2")]))
        #expect(ab != ["b": "2", "a": "1"])
    }
}
