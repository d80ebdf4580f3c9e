/// Settings for an `HTTP2Server`.
public struct HTTP2ServerConfiguration: Sendable {
    /// The server's certificate chain and key.
    public var identity: TLSIdentity
    /// The address to listen on: a numeric IPv4 or IPv6 address (used as given), or a name,
    /// resolved on a thread of its own within `resolveTimeout`.
    public var host: String
    /// The port; 0 lets the system choose (read it from `HTTP2Server.port`).
    public var port: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS sent when a connection opens (per-connection override
    /// with `HTTP2ServerConnection.setMaxConcurrentStreams` in the `onConnection` hook).
    public var maxConcurrentStreams: Int
    /// When set, clients are asked for a certificate, verified against this CA file when sent;
    /// clients without one are still accepted (see `HTTP2ServerConnection.peerCertificate`).
    public var clientCAFile: String?
    /// Time a new connection has to finish its TLS handshake; one that has not is dropped.
    public var handshakeTimeout: Duration
    /// Most connections open at once, handshakes in progress included. A connection beyond it
    /// is accepted and closed at once (the client sees the connection end during its handshake).
    public var maxConnections: Int
    /// SETTINGS_MAX_HEADER_LIST_SIZE: the largest header list (names, values and 32 bytes a
    /// field, RFC 9113 §6.5.2) a request may have. nghttp2 only advertises it, so the server
    /// enforces it: a request over it is answered 431 without reaching the handler, and the
    /// connection stays usable.
    public var maxHeaderListSize: Int
    /// A connection that has sent nothing for this long since its handshake or its last bytes,
    /// while no request waits for the server's answer, gets GOAWAY(NO_ERROR) and is closed.
    /// PINGs count as traffic.
    public var idleTimeout: Duration
    /// Largest request body accepted. A bigger one never reaches the handler: the stream is
    /// answered 413 with `{"reason":"PayloadTooLarge"}` (as APNs answers), the rest of its DATA
    /// is read and discarded, and the connection stays usable.
    public var maxRequestBodySize: Int
    /// Whether a TLS client that offers no ALPN at all is spoken to in HTTP/2 (prior knowledge),
    /// as APNs does; a client offering ALPN without `h2` is refused either way. Default false.
    public var acceptsClientsWithoutALPN: Bool
    /// Longest `HTTP2Server.start` waits for the system resolver when `host` is a name (a
    /// numeric address needs none); then it fails with `.resolveFailed`. Default 5 seconds.
    public var resolveTimeout: Duration
    /// Which thread runs the handler: the loop thread (`.loop`, the default) or worker threads
    /// of the server's own (`.workers`), which keeps the loop doing I/O only.
    public var execution: HTTP2ServerExecution

    /// Creates a configuration.
    public init(
        identity: TLSIdentity,
        host: String = "127.0.0.1",
        port: Int = 0,
        maxConcurrentStreams: Int = 100,
        clientCAFile: String? = nil,
        handshakeTimeout: Duration = .seconds(10),
        maxConnections: Int = 1024,
        maxHeaderListSize: Int = 16 << 10,
        idleTimeout: Duration = .seconds(300),
        maxRequestBodySize: Int = 1 << 20,
        acceptsClientsWithoutALPN: Bool = false,
        resolveTimeout: Duration = .seconds(5),
        execution: HTTP2ServerExecution = .loop
    ) {
        self.identity = identity
        self.host = host
        self.port = port
        self.maxConcurrentStreams = maxConcurrentStreams
        self.clientCAFile = clientCAFile
        self.handshakeTimeout = handshakeTimeout
        self.maxConnections = maxConnections
        self.maxHeaderListSize = maxHeaderListSize
        self.idleTimeout = idleTimeout
        self.maxRequestBodySize = maxRequestBodySize
        self.acceptsClientsWithoutALPN = acceptsClientsWithoutALPN
        self.resolveTimeout = resolveTimeout
        self.execution = execution
    }
}
