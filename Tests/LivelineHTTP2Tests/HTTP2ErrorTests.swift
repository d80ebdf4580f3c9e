import LivelineHTTP2
import Testing

@Suite("HTTP2Error")
struct HTTP2ErrorTests {
    @Test("HTTP/2 error codes have their RFC 9113 names", arguments: [
        (UInt32(0), "NO_ERROR"), (1, "PROTOCOL_ERROR"), (7, "REFUSED_STREAM"), (8, "CANCEL"), (11, "ENHANCE_YOUR_CALM"), (0x42, "0x42"),
    ])
    func errorCodeNames(code: UInt32, name: String) {
        #expect(HTTP2Error.errorCodeName(code) == name)
    }

    @Test("description is the code and the message")
    func description() {
        #expect("\(HTTP2Error(.timeout, "GET / took too long"))" == "timeout: GET / took too long")
    }
}
