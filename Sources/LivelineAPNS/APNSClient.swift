import Foundation
import LivelineCore
import Synchronization

/// An APNs provider client: device pushes, broadcasts and channel management over pooled
/// HTTP/2 connections.
///
/// Every push ends in exactly one `APNSResult`. The client validates before sending, honours the
/// server's stream limits (a token connection carries one stream until its first accepted push),
/// resends what the server did not process (REFUSED_STREAM, streams above a GOAWAY's last stream
/// id) on a new connection, retries 429/500/503 with capped backoff, renews the provider token once
/// on `ExpiredProviderToken`, and drains in-flight pushes on `shutdown()`.
public final class APNSClient: Sendable {
    /// The configuration it was made with.
    public let configuration: APNSConfiguration
    let connector: any PushConnector
    let devicePool: ConnectionPool
    private let extraPools = Mutex<[String: ConnectionPool]>([:])
    private let lifecycle = Mutex<(inFlight: Int, closing: Bool, drained: [CheckedContinuation<Void, Never>])>((0, false, []))

    /// Makes a client; connections open on first use.
    public convenience init(configuration: APNSConfiguration) {
        self.init(configuration: configuration, connector: HTTP2PushConnector())
    }

    init(configuration: APNSConfiguration, connector: any PushConnector) {
        self.configuration = configuration
        self.connector = connector
        devicePool = ConnectionPool(
            endpoint: Self.endpoint(configuration, host: configuration.environment.host, port: configuration.environment.port),
            size: configuration.connectionCount, connector: connector, timeouts: configuration.timeouts,
            reconnect: configuration.retries.reconnect, gated: configuration.authentication.tokenProvider != nil)
    }

    static func endpoint(_ configuration: APNSConfiguration, host: String, port: Int) -> Endpoint {
        var certificate: (String, String)?
        if case .certificate(let cert, let key) = configuration.authentication.kind { certificate = (cert, key) }
        return Endpoint(host: host, port: port, caFile: configuration.environment.caFile, certificate: certificate)
    }

    /// A one-connection pool for the broadcast or management host (the device pool when it is the same).
    func pool(host: String, port: Int) -> ConnectionPool {
        if host == configuration.environment.host && port == configuration.environment.port { return devicePool }
        return extraPools.withLock { pools in
            let key = "\(host):\(port)"
            if let pool = pools[key] { return pool }
            let pool = ConnectionPool(
                endpoint: Self.endpoint(configuration, host: host, port: port), size: 1, connector: connector,
                timeouts: configuration.timeouts, reconnect: configuration.retries.reconnect,
                gated: configuration.authentication.tokenProvider != nil)
            pools[key] = pool
            return pool
        }
    }

    // MARK: - Device pushes

    /// Sends one push to a device token (or a Live Activity push-to-start or update token).
    ///
    /// - Returns: accepted, rejected (status, reason, 410 timestamp) or failed; never throws.
    public func send(_ request: PushRequest, to deviceToken: String) async -> APNSResult {
        if let problem = Self.checkDeviceToken(deviceToken) { return .failed(problem) }
        if let problem = checkAuthentication(for: request.pushType) { return .failed(problem) }
        let body: [UInt8]
        do {
            body = try request.validate(for: .device)
        } catch {
            return .failed(APNSClientError(.invalidRequest, error.message))
        }
        let wire = WireRequest(method: "POST", path: "/3/device/\(deviceToken)", headers: request.headers, body: body)
        return await perform(wire, on: devicePool, idHeader: "apns-id")
    }

    /// A device token must be non-empty, even-length hex.
    static func checkDeviceToken(_ token: String) -> APNSClientError? {
        let isHex = token.utf8.allSatisfy { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
        if !token.isEmpty, isHex, token.utf8.count % 2 == 0 { return nil }
        let shown = token.isEmpty ? "empty" : "\"\(token.prefix(8))…\" (\(token.utf8.count) characters)"
        return APNSClientError(.invalidDeviceToken, "device token \(shown) is not an even-length hex string")
    }

    func checkAuthentication(for pushType: PushType) -> APNSClientError? {
        guard configuration.authentication.tokenProvider == nil, pushType.requiresTokenAuthentication else { return nil }
        return APNSClientError(
            .configuration,
            "\(pushType) pushes need token authentication (an AuthKey_<KEYID>.p8 key); APNs refuses them on certificate connections")
    }

    // MARK: - The retry loop

    /// Sends `base` with authorization, retrying per the reason table, until a verdict or a failure.
    func perform(_ base: WireRequest, on pool: ConnectionPool, idHeader: String, capture: CapturedResponse? = nil) async -> APNSResult {
        guard enter() else { return .failed(APNSClientError(.shutdown, "the client is shut down; the push was not sent")) }
        defer { leave() }
        let retries = configuration.retries
        let provider = configuration.authentication.tokenProvider
        var attempts = 0, retried = 0, resent = 0, renewed = false
        while true {
            var request = base
            var token: APNSTokenProvider.Token?
            if let provider {
                do { token = try provider.current() } catch { return .failed(error) }
                request.headers.append(("authorization", token!.authorization))
            }
            attempts += 1
            let connection: PooledConnection
            do {
                connection = try await pool.lease()
            } catch {
                if error.kind == .connectTransient, retried < retries.maxRetries {
                    retried += 1
                    try? await Task.sleep(for: max(pool.reconnectDelay, .milliseconds(10)))
                    continue
                }
                let code: APNSClientError.Code = error.kind == .closed ? .shutdown : .connectFailed
                return .failed(APNSClientError(code, "cannot connect to \(pool.endpoint): \(error.message)"))
            }
            let response: WireResponse
            do {
                response = try await connection.send(request, timeout: configuration.timeouts.requestDeadline)
            } catch {
                switch error.kind {
                case .notProcessed where resent < retries.maxResends:
                    resent += 1
                    continue
                case .lost where retried < retries.maxRetries, .connectTransient where retried < retries.maxRetries:
                    try? await Task.sleep(for: retries.backoff.delay(attempt: retried))
                    retried += 1
                    continue
                case .deadline:
                    return .failed(APNSClientError(.deadlineExceeded, "no response from \(pool.endpoint) within \(configuration.timeouts.requestDeadline) (attempt \(attempts))"))
                case .closed:
                    return .failed(APNSClientError(.shutdown, "the client shut down before a response arrived"))
                default:
                    return .failed(APNSClientError(.connectionLost, "\(error.message) (after \(attempts) attempt\(attempts == 1 ? "" : "s"))"))
                }
            }
            capture?.store(response)
            let result = APNSResult.parse(status: response.status, headers: response.headers, body: response.body, attempts: attempts, idHeader: idHeader)
            guard case .rejected(let rejection) = result else { return result }
            switch rejection.policy {
            case .backoff, .slowTokenUpdates:
                guard retried < retries.maxRetries else { return result }
                try? await Task.sleep(for: retries.backoff.delay(attempt: retried))
                retried += 1
            case .renewToken:
                guard !renewed, let provider, let token else { return result }
                renewed = true
                do {
                    guard try provider.renew(after: token) != nil else { return result }
                } catch { return .failed(error) }
            case .newConnection:
                guard retried < retries.maxRetries else { return result }
                connection.retire()
                retried += 1
            default:
                return result
            }
        }
    }

    // MARK: - Lifecycle

    private func enter() -> Bool {
        lifecycle.withLock { s in
            if s.closing { return false }
            s.inFlight += 1
            return true
        }
    }

    private func leave() {
        let waiters = lifecycle.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.inFlight -= 1
            guard s.inFlight == 0, s.closing else { return [] }
            defer { s.drained = [] }
            return s.drained
        }
        for w in waiters { w.resume() }
    }

    private func releaseDrainWaiters() {
        let waiters = lifecycle.withLock { s -> [CheckedContinuation<Void, Never>] in
            defer { s.drained = [] }
            return s.drained
        }
        for w in waiters { w.resume() }
    }

    /// Whether `shutdown()` has begun.
    var isShuttingDown: Bool { lifecycle.withLock { $0.closing } }

    /// Pushes in flight now (sent or waiting to be sent).
    public var inFlight: Int { lifecycle.withLock { $0.inFlight } }

    /// Stops taking pushes, waits up to `timeouts.shutdownGrace` for in-flight ones to finish,
    /// then closes every connection. Pushes sent afterwards fail with `.shutdown`.
    public func shutdown() async {
        let grace = configuration.timeouts.shutdownGrace
        let mustWait = lifecycle.withLock { s -> Bool in
            s.closing = true
            return s.inFlight > 0
        }
        if mustWait {
            let timer = Task {
                try? await Task.sleep(for: grace)
                self.releaseDrainWaiters()
            }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = lifecycle.withLock { s -> Bool in
                    if s.inFlight == 0 { return true }
                    s.drained.append(c)
                    return false
                }
                if now { c.resume() }
            }
            timer.cancel()
        }
        await devicePool.close(grace: .zero)
        for pool in extraPools.withLock({ Array($0.values) }) { await pool.close(grace: .zero) }
    }
}

/// Keeps the last response of a `perform` for callers that decode bodies (channel management).
final class CapturedResponse: Sendable {
    private let value = Mutex<WireResponse?>(nil)
    func store(_ response: WireResponse) { value.withLock { $0 = response } }
    var response: WireResponse? { value.withLock { $0 } }
}
