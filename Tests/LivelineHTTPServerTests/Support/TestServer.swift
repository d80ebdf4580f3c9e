import LivelineHTTPServer

/// Starts a server on a free loopback port, runs `body`, and stops the server (also when
/// `body` throws).
func withServer<R: Sendable>(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    handler: @escaping HTTPServer.Handler,
    _ body: (HTTPServer) async throws -> R
) async throws -> R {
    var configuration = HTTPServerConfiguration.forTests()
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

extension HTTPServerConfiguration {
    /// The defaults with the server's two clocks on the client (the idle timeout and the
    /// request-header deadline) set to 10 minutes, for tests that are not about them.
    ///
    /// Swift's cooperative pool has as many threads as cores (two here), and in the whole suite
    /// other tests block them in synchronous I/O for tens of seconds; a test task that opened a
    /// connection then waits that long for a thread before it sends. With the default 30 s idle
    /// timeout the server closed such connections, the request never reached its handler, and a
    /// test waiting for that handler waited for ever (the "hang" once worked around by running this
    /// suite serially). The timeouts themselves are tested in HTTPSlowClientTests.
    static func forTests() -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.connectionTimeout = .seconds(600)
        configuration.requestHeaderTimeout = .seconds(600)
        return configuration
    }
}
