import Foundation
import LivelineCrypto

/// Everything an `APNSClient` needs: credentials, where APNs is, timeouts, pool size and retries.
public struct APNSConfiguration: Sendable {
    /// How the client proves who it is.
    public struct Authentication: Sendable {
        enum Kind: Sendable {
            case token(APNSTokenProvider)
            case certificate(certFile: String, keyFile: String)
        }

        let kind: Kind

        /// Token (JWT) authentication with an `AuthKey_<KEYID>.p8` key. Required for Live Activities.
        public static func token(key: P256PrivateKey, keyID: String, teamID: String) -> Authentication {
            Authentication(kind: .token(APNSTokenProvider(key: key, keyID: keyID, teamID: teamID)))
        }

        /// Token authentication loading the key from a `.p8` file.
        ///
        /// - Throws: `KeyError` naming the file and what is wrong with it.
        public static func token(keyFile: String, keyID: String, teamID: String) throws(KeyError) -> Authentication {
            .token(key: try P256PrivateKey(contentsOfFile: keyFile), keyID: keyID, teamID: teamID)
        }

        /// Token authentication with a provider of your own (shared between clients, or with a test clock).
        public static func token(_ provider: APNSTokenProvider) -> Authentication {
            Authentication(kind: .token(provider))
        }

        /// TLS client-certificate authentication (PEM certificate and key).
        ///
        /// - Important: APNs refuses Live Activity (and location) pushes on certificate
        ///   connections; the client rejects them before sending.
        public static func certificate(certFile: String, keyFile: String) -> Authentication {
            Authentication(kind: .certificate(certFile: certFile, keyFile: keyFile))
        }

        /// The token provider, for token authentication.
        public var tokenProvider: APNSTokenProvider? {
            if case .token(let provider) = kind { provider } else { nil }
        }
    }

    /// Where APNs is: the device-push host, the broadcast host and the channel-management host.
    public struct Environment: Sendable, Hashable, CustomStringConvertible {
        /// "production", "sandbox" or "custom".
        public var name: String
        /// Host of `/3/device/...`.
        public var host: String
        /// 443 or 2197 for Apple's hosts.
        public var port: Int
        /// Host of `/4/broadcasts/apps/...` (Apple's samples use `api-broadcast…`; the
        /// command-line page uses the device host; see apns-protocol.md §1.2).
        public var broadcastHost: String
        /// Port of the broadcast host.
        public var broadcastPort: Int
        /// Host of the channel-management API.
        public var managementHost: String
        /// Port of the channel-management API (2195 sandbox, 2196 production).
        public var managementPort: Int
        /// PEM CA certificates to trust instead of the system store (for local servers).
        /// Verification is always on.
        public var caFile: String?

        /// `api.push.apple.com:443`.
        public static let production = Environment(
            name: "production", host: "api.push.apple.com", port: 443, broadcastHost: "api-broadcast.push.apple.com",
            broadcastPort: 443, managementHost: "api-manage-broadcast.push.apple.com", managementPort: 2196, caFile: nil)

        /// `api.sandbox.push.apple.com:443`.
        public static let sandbox = Environment(
            name: "sandbox", host: "api.sandbox.push.apple.com", port: 443, broadcastHost: "api-broadcast.sandbox.push.apple.com",
            broadcastPort: 443, managementHost: "api-manage-broadcast.sandbox.push.apple.com", managementPort: 2195, caFile: nil)

        /// A server of your own (the simulator, a test server): every API on `host:port`, trusting `caFile`.
        public static func custom(host: String, port: Int, caFile: String?) -> Environment {
            Environment(
                name: "custom", host: host, port: port, broadcastHost: host, broadcastPort: port,
                managementHost: host, managementPort: port, caFile: caFile)
        }

        /// This environment with the device host on `port`: APNs listens on 443 and 2197 (for firewalls).
        ///
        /// - Throws: `APNSClientError(.configuration)` for another port on Apple's hosts.
        public func onPort(_ port: Int) throws(APNSClientError) -> Environment {
            if name != "custom", port != 443, port != 2197 {
                throw APNSClientError(.configuration, "port \(port) is not an APNs port; \(host) listens on 443 and 2197")
            }
            var copy = self
            copy.port = port
            return copy
        }

        public var description: String { "\(name) (\(host):\(port))" }
    }

    /// Every wait has a limit.
    public struct Timeouts: Sendable, Hashable {
        /// TCP + TLS + HTTP/2 preface.
        public var connect: Duration = .seconds(10)
        /// From sending a request to its response, per attempt.
        public var requestDeadline: Duration = .seconds(30)
        /// Send a PING after this long without traffic, and drop the connection if it goes unanswered.
        public var idlePing: Duration = .seconds(60)
        /// How long `shutdown()` waits for in-flight pushes before cutting connections.
        public var shutdownGrace: Duration = .seconds(10)

        /// The defaults above.
        public init() {}
    }

    /// Automatic retries.
    public struct Retries: Sendable, Hashable {
        /// Retries after 429 `TooManyRequests`, 500, 503, `TooManyProviderTokenUpdates`, or a lost connection.
        public var maxRetries: Int = 3
        /// Delay between those retries.
        public var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        /// Delay between reconnection attempts after a failed connect (1 s → 60 s, like Pushy).
        public var reconnect = Backoff(initial: .seconds(1), maximum: .seconds(60))
        /// Times a stream refused with REFUSED_STREAM or left above a GOAWAY's last stream id is resent.
        public var maxResends: Int = 10

        /// The defaults above.
        public init() {}
    }

    /// Credentials.
    public var authentication: Authentication
    /// Where to connect.
    public var environment: Environment
    /// Connections to the device host; pushes are spread over them.
    public var connectionCount: Int
    /// Limits on waiting.
    public var timeouts: Timeouts
    /// Retry behaviour.
    public var retries: Retries
    /// Requests admitted by `APNSClient.sendAll` at once: bounds memory for any number of pushes.
    public var maxInFlight: Int

    /// Makes a configuration; only `authentication` and `environment` are required.
    public init(
        authentication: Authentication, environment: Environment, connectionCount: Int = 1, timeouts: Timeouts = Timeouts(),
        retries: Retries = Retries(), maxInFlight: Int = 1000
    ) {
        self.authentication = authentication
        self.environment = environment
        self.connectionCount = max(1, connectionCount)
        self.timeouts = timeouts
        self.retries = retries
        self.maxInFlight = max(1, maxInFlight)
    }
}
