import Foundation
import LivelineHTTPServer
import Testing

@Suite("HTTPServer: the header memory limit")
struct HTTPServerHeaderLimitTests {
    @Test("by default, 12 KiB of headers are served and 40 KiB are refused with 431 without calling the handler")
    func defaultHeaderLimit() async throws {
        #expect(HTTPServerConfiguration().maxHeaderBytes == 32 * 1024)
        try await withServer({ _ in }, handler: { request in .text(200, "\(request.header("x-filler")?.count ?? 0)") }) { server in
            let fits = try await RawConnection.connect(port: server.port)
            let served = try await fits.exchange(get("/", "X-Filler: \(String(repeating: "a", count: 12 * 1024))\r\n"))
            #expect(served?.status == 200)
            #expect(served?.text == "\(12 * 1024)")
            let tooLarge = try await RawConnection.connect(port: server.port)
            let refused = try await tooLarge.exchange(get("/", "X-Filler: \(String(repeating: "a", count: 40 * 1024))\r\n"))
            #expect(refused?.status == 431)
        }
    }
}
