import CMicroHTTPD

/// Where and how an `HTTPServer` listens, and the limits it enforces.
public struct HTTPServerConfiguration: Sendable {
    /// The local address to bind: an IPv4 or IPv6 literal (`"127.0.0.1"`, `"::1"`, `"0.0.0.0"`,
    /// `"::"`). Host names are not resolved.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: Int = 0
    /// The largest request body accepted. A larger one is answered with 413 and a JSON error
    /// (`"code":"body-too-large"`) without calling the handler: at once when `Content-Length`
    /// says so, otherwise (chunked uploads) once the body ends; the excess is discarded, not kept.
    public var maxBodyBytes: Int = 1 << 20
    /// libmicrohttpd threads (each runs its own epoll loop for its share of the connections).
    public var threads: Int = 2
    /// The most connections open at once, split evenly between the threads; further clients wait
    /// in the kernel's accept queue until a connection closes. Must be at least `threads`.
    public var connectionLimit: Int = 1000
    /// The most connections open at once from one client address (IPv4 address, or whole IPv6
    /// address); the server closes further ones as soon as it accepts them. So one client holding
    /// slow connections cannot take the `connectionLimit` from everyone else. Zero: no limit per
    /// address. Behind a reverse proxy every connection comes from the proxy's address: raise it
    /// to the proxy's connection pool, or set zero and limit at the proxy.
    public var perAddressConnectionLimit: Int = 64
    /// Connections idle this long are closed (rounded up to whole seconds; zero: never).
    /// A connection whose handler is running is not idle. Every byte received resets it; the
    /// deadline a slow client cannot reset is `requestHeaderTimeout`.
    public var connectionTimeout: Duration = .seconds(30)
    /// A request's line and headers must be complete within this time of the connection opening,
    /// or on a kept-alive connection of its previous request finishing, however slowly the client
    /// trickles them; otherwise the connection is closed without an answer. So a kept-alive
    /// connection waiting for its next request is also closed after this time. Zero: no deadline
    /// (only `connectionTimeout`).
    public var requestHeaderTimeout: Duration = .seconds(10)
    /// Serve HTTPS instead of plain HTTP (nil: plain HTTP).
    public var tls: HTTPServerTLS?
    /// Memory for one connection's request line, headers and I/O buffers
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); larger headers are answered with 431 by
    /// libmicrohttpd. At least 4096. libmicrohttpd zeroes the whole pool after every request
    /// (at 32 KiB about a tenth of a `/healthz`'s CPU on this project's bench machine), but a
    /// 16 KiB pool was measured to drop requests: with the read and write buffers in the same
    /// pool, a 12 KiB header or a chunked body arriving in pieces left it no room.
    public var maxHeaderBytes: Int = 32 * 1024

    /// The defaults: loopback, a free port, 1 MiB bodies, two threads.
    public init() {}
}

/// The certificate and key an `HTTPServer` terminates TLS with (libmicrohttpd's HTTPS, on GnuTLS).
public struct HTTPServerTLS: Sendable {
    /// A PEM file with the server's certificate, followed by any intermediate certificates.
    public var certificateFile: String
    /// A PEM file with the certificate's private key (unencrypted).
    public var privateKeyFile: String

    /// Creates a TLS setting from the two PEM files' paths; they are read when the server starts.
    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }

    /// Whether this build of libmicrohttpd can serve HTTPS (Debian's can).
    public static var isSupported: Bool { liveline_MHD_supports_tls() != 0 }
}
