/// Settings for an `HTTP2Connection`. Every timeout has a default; nothing waits forever.
public struct HTTP2ClientConfiguration: Sendable {
    /// The CAs that verify the server. Verification cannot be switched off.
    public var trust: TrustRoots
    /// A client certificate to present (APNs certificate authentication), if any.
    public var identity: TLSIdentity?
    /// The name sent as SNI and verified against the certificate; nil uses the host.
    /// An IP literal is verified against the certificate's IP addresses and sent without SNI.
    /// - Important: it cannot be empty (`connect` refuses it): an empty name would check no name.
    public var serverName: String?
    /// Time allowed for TCP connect, TLS handshake and the server's first SETTINGS.
    public var connectTimeout: Duration
    /// Default deadline of a request from `send` to its complete response.
    public var requestTimeout: Duration
    /// Send a PING after this long without reading anything; nil never pings on its own.
    public var idlePingInterval: Duration?
    /// Close the connection when a PING is not acknowledged within this time.
    public var pingTimeout: Duration
    /// Most requests waiting for a free stream; more fail at once with a retryable `.closed`
    /// error naming the limit. Bounds memory when the server allows few streams.
    public var maxQueuedRequests: Int
    /// Largest response body kept; a bigger one resets the stream (CANCEL) and fails the
    /// request with `.streamReset`, so a broken server cannot exhaust memory.
    public var maxResponseBodySize: Int

    /// Creates a configuration.
    public init(
        trust: TrustRoots = .system,
        identity: TLSIdentity? = nil,
        serverName: String? = nil,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        idlePingInterval: Duration? = .seconds(60),
        pingTimeout: Duration = .seconds(10),
        maxQueuedRequests: Int = 100_000,
        maxResponseBodySize: Int = 16 << 20
    ) {
        self.trust = trust
        self.identity = identity
        self.serverName = serverName
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.idlePingInterval = idlePingInterval
        self.pingTimeout = pingTimeout
        self.maxQueuedRequests = maxQueuedRequests
        self.maxResponseBodySize = maxResponseBodySize
    }
}
