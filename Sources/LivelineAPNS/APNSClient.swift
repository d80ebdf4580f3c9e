import Foundation
import LivelineCore
import LivelineHTTP2
import Synchronization

/// An APNs provider client: device pushes, broadcasts and channel management over pooled
/// HTTP/2 connections.
///
/// Every push ends in exactly one `APNSResult`. The client validates before sending, honours the
/// server's stream limits (a token connection carries one stream until its first accepted push),
/// resends what the server did not process (REFUSED_STREAM, streams above a GOAWAY's last stream
/// id) on a new connection, retries 429/500/503 with capped backoff, renews the provider token once
/// on `ExpiredProviderToken`, and drains in-flight pushes on `shutdown()`.
///
/// Module: LivelineAPNS owns the provider side of APNs: authentication, the connection pool,
/// retries by reason, bulk sends, broadcasts and channels. It imports LivelineCore, LivelineCrypto
/// and LivelineHTTP2 only; it must never import the simulator (tests reach it over the network),
/// the service or the store.
public final class APNSClient: Sendable {
    /// The configuration it was made with.
    public let configuration: APNSConfiguration
    let connector: any PushConnector
    let devicePool: ConnectionPool
    private let extraPools = Mutex<[String: ConnectionPool]>([:])
    /// Each channel's message-storage policy as this client created or read it (`"<bundle>/<channel>"`),
    /// so a broadcast with a non-zero expiration to a No-Message-Stored channel is refused before it
    /// is sent. Bounded: emptied when it reaches `channelPolicyLimit`.
    let channelPolicies = Mutex<[String: APNSMessageStoragePolicy]>([:])
    static let channelPolicyLimit = 10_000
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
    /// Cancelling the calling task does not abort a push already handed to a connection: it
    /// still ends in a result, bounded by `timeouts.requestDeadline`. A push still waiting for
    /// its turn (behind the one stream an untrusted token connection allows) ends at once with
    /// `cancelled`; that wait also counts against `timeouts.requestDeadline`.
    ///
    /// - Returns: accepted, rejected (status, reason, 410 timestamp) or failed; never throws.
    public func send(_ request: PushRequest, to deviceToken: String) async -> APNSResult {
        let cancellation = PushCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<APNSResult, Never>) in
                send(request, to: deviceToken, cancellation: cancellation) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Validates and sends one push, calling `completion` once with its verdict (see `submit`).
    func send(_ request: PushRequest, to deviceToken: String, cancellation: PushCancellation? = nil, completion: @escaping @Sendable (APNSResult) -> Void) {
        switch prepare(request, to: deviceToken) {
        case .success(let wire): submit(wire, on: devicePool, idHeader: "apns-id", cancellation: cancellation, completion: completion)
        case .failure(let problem): completion(.failed(problem))
        }
    }

    /// The checked wire request for one device push, or why it cannot be sent.
    func prepare(_ request: PushRequest, to deviceToken: String) -> Result<WireRequest, APNSClientError> {
        if let problem = Self.checkDeviceToken(deviceToken) { return .failure(problem) }
        if let problem = checkAuthentication(for: request.pushType) { return .failure(problem) }
        let body: [UInt8]
        do {
            body = try request.validate(for: .device)
        } catch {
            return .failure(APNSClientError(.invalidRequest, error.message))
        }
        // The other header values are built from enums, numbers and UUIDs; these two are free text.
        if !ByteScan.isFieldValue(request.topic) {
            return .failure(APNSClientError(.invalidRequest, "apns-topic contains NUL, CR or LF, which HTTP/2 header values cannot carry"))
        }
        if let collapseID = request.collapseID, !ByteScan.isFieldValue(collapseID) {
            return .failure(APNSClientError(.invalidRequest, "apns-collapse-id contains NUL, CR or LF, which HTTP/2 header values cannot carry"))
        }
        // Checked here (hex token path, safe header values), so the transport need not check again.
        return .success(WireRequest(method: "POST", path: "/3/device/" + deviceToken, headers: request.headers, body: body, indexesPath: false, isChecked: true))
    }

    /// A device token must be non-empty, even-length hex.
    static func checkDeviceToken(_ token: String) -> APNSClientError? {
        if !token.isEmpty, token.utf8.count % 2 == 0, ByteScan.isHex(token) { return nil }
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

    /// Where a push stands in the retry loop: attempts made and retry budgets spent.
    struct RetryState: Sendable {
        var attempts = 0
        var retried = 0
        var resent = 0
        var renewed = false
    }

    /// What to do after one attempt.
    enum Next: Sendable {
        case done(APNSResult)
        case again(after: Duration?)
    }

    /// Sends `base` with authorization, retrying per the reason table, until a verdict or a failure.
    func perform(_ base: WireRequest, on pool: ConnectionPool, idHeader: String, capture: CapturedResponse? = nil) async -> APNSResult {
        guard enter() else { return .failed(APNSClientError(.shutdown, "the client is shut down; the push was not sent")) }
        defer { leave() }
        var state = RetryState()
        return await retryLoop(base, on: pool, idHeader: idHeader, capture: capture, state: &state, delay: nil)
    }

    /// Sends `base` and calls `completion` once with its verdict (on a connection's loop thread
    /// or a task; it must not block).
    ///
    /// The common case costs no task: a trusted connection that is ready now takes the request
    /// and its response is judged in the completion callback. A push that must wait (for a
    /// connection, the one-stream gate) or be retried continues in the async retry loop.
    /// A push that continues in a task is cancelled through `cancellation` when given.
    func submit(_ base: WireRequest, on pool: ConnectionPool, idHeader: String, cancellation: PushCancellation? = nil,
                completion: @escaping @Sendable (APNSResult) -> Void) {
        guard enter() else {
            completion(.failed(APNSClientError(.shutdown, "the client is shut down; the push was not sent")))
            return
        }
        guard let connection = pool.leaseReady(), connection.isOpen else {
            let task = Task {
                var state = RetryState()
                let result = await self.retryLoop(base, on: pool, idHeader: idHeader, capture: nil, state: &state, delay: nil)
                self.leave()
                completion(result)
            }
            cancellation?.attach(task)
            return
        }
        var request = base
        var token: APNSTokenProvider.Token?
        if let provider = configuration.authentication.tokenProvider {
            do { token = try provider.current() } catch {
                leave()
                completion(.failed(error))
                return
            }
            request.headers.append(("authorization", token!.authorization))
        }
        let first = RetryState(attempts: 1)
        connection.send(request, timeout: configuration.timeouts.requestDeadline) { [self, token] outcome in
            var state = first
            switch decide(outcome, token: token, connection: connection, pool: pool, idHeader: idHeader, capture: nil, state: &state) {
            case .done(let result):
                leave()
                completion(result)
            case .again(let delay):
                let task = Task {
                    var state = state
                    let result = await self.retryLoop(base, on: pool, idHeader: idHeader, capture: nil, state: &state, delay: delay)
                    self.leave()
                    completion(result)
                }
                cancellation?.attach(task)
            }
        }
    }

    /// The retry loop from `state`, first waiting `delay` when given.
    func retryLoop(_ base: WireRequest, on pool: ConnectionPool, idHeader: String, capture: CapturedResponse?, state: inout RetryState, delay: Duration?) async -> APNSResult {
        let retries = configuration.retries
        let provider = configuration.authentication.tokenProvider
        var delay = delay
        while true {
            if let wait = delay { try? await Task.sleep(for: wait) }
            delay = nil
            if Task.isCancelled {
                return .failed(APNSClientError(.cancelled, "the push was cancelled before it was sent (after \(state.attempts) attempt\(state.attempts == 1 ? "" : "s"))"))
            }
            var request = base
            var token: APNSTokenProvider.Token?
            if let provider {
                do { token = try provider.current() } catch { return .failed(error) }
                request.headers.append(("authorization", token!.authorization))
            }
            state.attempts += 1
            let connection: PooledConnection
            do {
                connection = try await pool.lease()
            } catch {
                if error.kind == .connectTransient, state.retried < retries.maxRetries {
                    state.retried += 1
                    delay = max(pool.reconnectDelay, .milliseconds(10))
                    continue
                }
                let code: APNSClientError.Code = error.kind == .closed ? .shutdown : .connectFailed
                return .failed(APNSClientError(code, "cannot connect to \(pool.endpoint): \(error.message)"))
            }
            // The attempt's deadline starts once it has a connection (connecting has its own
            // timeout) and covers any wait at the connection's one-stream gate.
            let deadline = ContinuousClock.now + configuration.timeouts.requestDeadline
            let outcome: Result<WireResponse, WireError>
            do {
                outcome = .success(try await connection.send(request, deadline: deadline))
            } catch {
                outcome = .failure(error)
            }
            switch decide(outcome, token: token, connection: connection, pool: pool, idHeader: idHeader, capture: capture, state: &state) {
            case .done(let result): return result
            case .again(let wait): delay = wait
            }
        }
    }

    /// Judges one attempt: a verdict, or another attempt (after a delay) per the retry policy.
    func decide(_ outcome: Result<WireResponse, WireError>, token: APNSTokenProvider.Token?, connection: PooledConnection, pool: ConnectionPool,
                idHeader: String, capture: CapturedResponse?, state: inout RetryState) -> Next {
        let retries = configuration.retries
        let response: WireResponse
        switch outcome {
        case .success(let r):
            response = r
        case .failure(let error):
            switch error.kind {
            case .notProcessed where state.resent < retries.maxResends:
                state.resent += 1
                return .again(after: nil)
            case .lost where state.retried < retries.maxRetries, .connectTransient where state.retried < retries.maxRetries:
                defer { state.retried += 1 }
                return .again(after: retries.backoff.delay(attempt: state.retried))
            case .deadline:
                return .done(.failed(APNSClientError(.deadlineExceeded, "no response from \(pool.endpoint) within \(configuration.timeouts.requestDeadline) (attempt \(state.attempts)): \(error.message)")))
            case .cancelled:
                return .done(.failed(APNSClientError(.cancelled, "\(error.message) (attempt \(state.attempts))")))
            case .closed:
                return .done(.failed(APNSClientError(.shutdown, "the client shut down before a response arrived")))
            default:
                return .done(.failed(APNSClientError(.connectionLost, "\(error.message) (after \(state.attempts) attempt\(state.attempts == 1 ? "" : "s"))")))
            }
        }
        capture?.store(response)
        let result = APNSResult.parse(status: response.status, headers: response.headers, body: response.body, attempts: state.attempts, idHeader: idHeader)
        guard case .rejected(let rejection) = result else { return .done(result) }
        switch rejection.policy {
        case .backoff, .slowTokenUpdates:
            guard state.retried < retries.maxRetries else { return .done(result) }
            defer { state.retried += 1 }
            return .again(after: retries.backoff.delay(attempt: state.retried))
        case .renewToken:
            guard !state.renewed, let provider = configuration.authentication.tokenProvider, let token else { return .done(result) }
            state.renewed = true
            do {
                guard try provider.renew(after: token) != nil else { return .done(result) }
            } catch { return .done(.failed(error)) }
            return .again(after: nil)
        case .newConnection:
            guard state.retried < retries.maxRetries else { return .done(result) }
            connection.retire()
            state.retried += 1
            return .again(after: nil)
        default:
            return .done(result)
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
