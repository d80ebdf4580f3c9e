import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCrypto
import LivelineStore
import Synchronization

/// Delivers stored interactions to the backend's webhook, once each, signed and retried.
///
/// Each POST carries `Liveline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
/// with the configured secret (and a second `v1=` with the previous secret during a rotation),
/// and `Idempotency-Key` (the interaction's), so the backend can drop a repeat after a lost
/// answer. The backend accepts a signature whose `t` is within its replay window
/// (`replayWindow`, documented) of its clock, and keeps the idempotency keys it saw that long.
///
/// The target is checked at start (`checkTarget`): a secret is required, `https` unless the host
/// is a literal loopback address, and no private, link-local or unspecified address unless
/// `webhookAllowPrivate`; a host name is resolved again before each delivery and refused when it
/// resolves to such an address. Redirects are never followed (a 3xx is a failed attempt).
final class WebhookSender: Sendable {
    /// How old a signature's timestamp a receiver should accept (documented in docs/service.md).
    static let replayWindow: TimeInterval = 300
    /// A session of its own (its delegate refuses redirects), made only when there is a webhook,
    /// and invalidated at `stop()`.
    private let session: URLSession?
    private let store: OffPoolStore
    private let configuration: ServiceConfiguration
    private let log: @Sendable (String) -> Void
    private let state = Mutex<(task: Task<Void, Never>?, wake: AsyncStream<Void>.Continuation?)>((nil, nil))
    static let maxAttempts = 10
    /// This instance's name in the leases it takes (`claimed_by`): unique per start on a shared
    /// database; on SQLite (one instance per file) always the same, so that after a crash the
    /// instance started again takes back at once what the crashed one held, without waiting for the lease.
    let claimant: String
    /// Interactions claimed at once, each POST's timeout, and the lease: long enough for every one
    /// of a batch to time out, so a live instance never loses an interaction it is delivering.
    static let batch = 5
    static let requestTimeout: TimeInterval = 10
    static let lease: TimeInterval = Double(batch) * requestTimeout + 30

    init(store: any Store, configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) {
        self.store = OffPoolStore(store, label: "liveline.webhooks.store")
        claimant = store.isShared ? "instance-\(getpid())-\(UUID().uuidString.prefix(8))" : "the-only-instance"
        self.configuration = configuration
        self.log = log
        if configuration.webhookURL != nil {
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.httpShouldSetCookies = false
            sessionConfiguration.urlCache = nil
            session = URLSession(configuration: sessionConfiguration, delegate: NoRedirects(), delegateQueue: nil)
        } else {
            session = nil
        }
    }

    /// `t=<timestamp>,v1=<HMAC under the first secret>[,v1=<HMAC under the next>…]`.
    static func signature(secrets: [String], timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp)" + secrets.map { secret in
            ",v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body))
        }.joined()
    }

    /// Refuses a webhook the service must not call: no secret, not https (except a literal
    /// loopback host), or a literal private address without `webhookAllowPrivate`.
    static func checkTarget(_ configuration: ServiceConfiguration) throws(ServiceConfiguration.Problem) {
        guard let text = configuration.webhookURL else { return }
        guard let secret = configuration.webhookSecret, secret.utf8.count >= 16 else {
            throw .init(message: "webhookURL needs webhookSecret (--webhook-secret or LIVELINE_WEBHOOK_SECRET, at least 16 characters): every webhook is signed")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .init(message: "webhookURL must be an https:// URL, got '\(text.prefix(200))'")
        }
        if url.user != nil || url.password != nil { throw .init(message: "webhookURL must not carry a user or password; the webhook is authenticated by its signature") }
        let literal = IPAddressClass(host: host)
        guard scheme == "https" || (scheme == "http" && literal == .loopback) else {
            throw .init(message: "webhookURL must use https (http only to a loopback address such as 127.0.0.1), got '\(scheme)://\(host.prefix(100))'")
        }
        if let literal, literal != .loopback, literal != .public, !configuration.webhookAllowPrivate {
            throw .init(message: "webhookURL's host \(host.prefix(100)) is a \(literal.rawValue) address: refused unless webhookAllowPrivate is true (LIVELINE_WEBHOOK_ALLOW_PRIVATE)")
        }
    }

    /// Why `host` must not be called now: it resolves to a non-public address (a name, not a
    /// literal loopback address), unless allowed. `nil` when it may be.
    func refusal(host: String) -> String? {
        if configuration.webhookAllowPrivate || IPAddressClass(host: host) != nil { return nil }
        let classes = IPAddressClass.resolve(host)
        if classes.isEmpty { return "the webhook host \(host.prefix(100)) does not resolve" }
        if let bad = classes.first(where: { $0 != .public }) {
            return "the webhook host \(host.prefix(100)) resolves to a \(bad.rawValue) address; not called (webhookAllowPrivate is false)"
        }
        return nil
    }

    func start() {
        guard let url = configuration.webhookURL.flatMap(URL.init(string:)) else { return }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var ticks = stream.makeAsyncIterator()
            while !Task.isCancelled {
                await self.deliverDue(to: url)
                let next = Task {
                    // Cancelled (woken earlier), it must not tick: a stale tick would make the loop spin.
                    guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                    continuation.yield()
                }
                _ = await ticks.next()
                next.cancel()
            }
        }
        state.withLock { $0 = (task, continuation) }
    }

    func wake() { _ = state.withLock { $0.wake }?.yield() }

    func stop() async {
        let task = state.withLock { s in
            defer { s.wake?.finish() }
            return s.task
        }
        task?.cancel()
        await task?.value
        session?.finishTasksAndInvalidate()
    }

    /// Claims due interactions a batch at a time (a lease, so other instances pass them over) and
    /// delivers them, until none is due.
    private func deliverDue(to url: URL) async {
        while !Task.isCancelled {
            let now = Date(), claimant = claimant
            let due = (try? await store.write { try $0.claimWebhooks(by: claimant, now: now, limit: Self.batch, leaseUntil: now.addingTimeInterval(Self.lease)) }) ?? []
            await deliver(due, to: url)
            if due.count < Self.batch { return }
        }
    }

    private func deliver(_ due: [InteractionRecord], to url: URL) async {
        for interaction in due {
            // The body says how many attempts came before this one, as it did before claims counted them.
            var before = interaction
            before.attempts -= 1
            var body = Service.json(before).serialized()
            body.append(0x0A)
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            request.timeoutInterval = Self.requestTimeout
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(interaction.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
            let secrets = [configuration.webhookSecret, configuration.webhookPreviousSecret].compactMap { $0 }
            request.setValue(Self.signature(secrets: secrets, timestamp: Int(Date().timeIntervalSince1970), body: body), forHTTPHeaderField: "Liveline-Signature")
            var error: String? = refusal(host: url.host ?? "")
            if error == nil {
                do {
                    guard let session else { return }
                    let (_, response) = try await session.data(for: request)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    if (300...399).contains(status) {
                        error = "the webhook answered \(status), a redirect; redirects are not followed: configure the final URL"
                    } else if !(200...299).contains(status) {
                        error = "the webhook answered \(status)"
                    }
                } catch let e {
                    error = "the webhook could not be reached: \(e.localizedDescription)"
                }
            }
            let attempts = interaction.attempts  // counted at the claim
            let state = error == nil ? "delivered" : (attempts >= Self.maxAttempts ? "failed" : "pending")
            let next = Date().addingTimeInterval(min(300, pow(2, Double(attempts))))
            if let error { log("webhook: interaction \(interaction.id): \(error) (attempt \(attempts))") }
            let id = interaction.id, failure = error, claimant = claimant
            let kept = try? await store.write { try $0.completeWebhook(id: id, claimant: claimant, state: state, nextAttemptAt: next, error: failure) }
            if kept == false { log("webhook: interaction \(id): the lease lapsed and another instance claimed it; it may reach the webhook twice") }
        }
    }
}

/// Refuses every redirect: the 3xx answer itself comes back to the caller.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// What kind of address an IP address is, for the webhook's target checks.
enum IPAddressClass: String, Sendable {
    case loopback, `private`, linkLocal = "link-local", unspecified, multicast, `public`

    /// The class of a literal IPv4 or IPv6 host (`[…]` allowed), or `nil` for a name. `localhost` counts as loopback.
    init?(host: String) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.lowercased() == "localhost" { self = .loopback; return }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = Self.classify(v4: withUnsafeBytes(of: v4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = Self.classify(v6: withUnsafeBytes(of: v6) { Array($0) })
        } else {
            return nil
        }
    }

    static func classify(v4 b: [UInt8]) -> IPAddressClass {
        switch (b[0], b[1]) {
        case (127, _): return .loopback
        case (0, _): return .unspecified
        case (10, _), (172, 16...31), (192, 168), (100, 64...127), (198, 18...19): return .private
        case (169, 254): return .linkLocal
        case (224...255, _): return .multicast
        default: return .public
        }
    }

    static func classify(v6 b: [UInt8]) -> IPAddressClass {
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : .unspecified }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return classify(v4: Array(b[12..<16])) }  // IPv4-mapped
        if b[0] & 0xFE == 0xFC { return .private }  // fc00::/7
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFF { return .multicast }
        return .public
    }

    /// The classes of every address `host` resolves to (empty when it does not resolve).
    static func resolve(_ host: String) -> [IPAddressClass] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var out: [IPAddressClass] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                if entry.pointee.ai_family == AF_INET {
                    let a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    out.append(classify(v4: withUnsafeBytes(of: a) { Array($0) }))
                } else if entry.pointee.ai_family == AF_INET6 {
                    let a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    out.append(classify(v6: withUnsafeBytes(of: a) { Array($0) }))
                }
            }
            next = entry.pointee.ai_next
        }
        return out
    }
}
