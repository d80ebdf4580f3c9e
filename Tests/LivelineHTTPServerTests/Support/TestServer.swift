import LivelineHTTPServer

/// Starts a server on a free loopback port, runs `body`, and stops the server (also when
/// `body` throws).
func withServer<R: Sendable>(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    handler: @escaping HTTPServer.Handler,
    _ body: (HTTPServer) async throws -> R
) async throws -> R {
    var configuration = HTTPServerConfiguration()
    configure(&configuration)
    let server = try HTTPServer.start(configuration, handler: handler)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Bytes 0...255 repeated to `count`.
func patternBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}
