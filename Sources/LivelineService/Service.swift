import Foundation
import LivelineCore
import LivelineCrypto
import LivelineHTTPServer
import LivelineStore
import LivelineUI
import Synchronization

/// Liveline's service: the token registry, fan-out by logical activity id, and the outbox that
/// delivers every accepted send. `ServiceServer` puts it on HTTP.
///
/// Module: LivelineService owns `liveline serve`: the API and its OpenAPI document, fan-out, the
/// outbox workers, webhooks and metrics. It imports LivelineCore, LivelineUI, LivelineCrypto,
/// LivelineAPNS, LivelineStore and LivelineHTTPServer; it must never import the simulator or the
/// dashboard (they sit above it), nor a database's module directly: storage goes through `Store`.
public final class Service: Sendable {
    let store: any Store
    let configuration: ServiceConfiguration
    let keys: KeyAuthority
    let installations = InstallationAuthority()
    /// Per-installation, per-address and per-address failed-authentication budgets.
    let installationBuckets: RateBuckets
    let addressBuckets: RateBuckets
    let failureBuckets = RateBuckets(rate: 1, burst: 30)
    /// When interactions past their retention were last deleted.
    let lastRetention = Mutex(Date.distantPast)
    /// Seals and opens the apps' `.p8` keys.
    let vault: AppKeyVault
    let metrics = Metrics()
    let clients: ClientRegistry
    let dispatcher: Dispatcher
    let webhooks: WebhookSender
    /// Deletes on-demand channels of ended activities (Service+ActivityChannels.swift).
    let channelSweeper = ActivityChannelSweeper()
    /// Push-starts successors of activities that opted in to renewal (Service+Renewal.swift).
    let renewer = ActivityRenewer()
    /// Attributes types the service can check and convert, by name.
    let schemas: [String: ActivitySchema]
    let log: @Sendable (String) -> Void
    let routes: [Route]
    /// Store reads of handlers that resume on Swift's cooperative pool (`?wait`).
    let waitReads: OffPoolStore

    public init(store: any Store, configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) throws(ServiceConfiguration.Problem) {
        self.store = store
        self.configuration = configuration
        self.log = log
        waitReads = OffPoolStore(store, label: "liveline.api.wait")
        keys = KeyAuthority(rate: configuration.rateLimit, burst: configuration.rateBurst, cacheTTL: configuration.keyCacheTTL)
        installationBuckets = RateBuckets(rate: configuration.installationRateLimit, burst: configuration.installationRateBurst)
        addressBuckets = RateBuckets(rate: configuration.addressRateLimit, burst: configuration.addressRateBurst)
        vault = try AppKeyVault(configuration)
        clients = ClientRegistry(configuration: configuration, vault: vault)
        dispatcher = Dispatcher(store: store, configuration: configuration, clients: clients, metrics: metrics, log: log)
        try WebhookSender.checkTarget(configuration)
        webhooks = WebhookSender(store: store, configuration: configuration, log: log)
        var schemas = [FlightAttributes.schema.name: FlightAttributes.schema, VoltraAttributes.schema.name: VoltraAttributes.schema]
        for file in configuration.schemaFiles {
            guard let data = FileManager.default.contents(atPath: file) else { throw .init(message: "cannot read the schema file '\(file)'") }
            do {
                let schema = try ActivitySchema(json: try JSONValue.parse(Array(data)))
                schemas[schema.name] = schema
            } catch {
                throw .init(message: "schema file '\(file)': \(error)")
            }
        }
        self.schemas = schemas
        routes = Self.table + Self.schemaVersionRoutes
    }

    /// Makes the first admin key when there is none; returns its secret (to show once). Under the
    /// database's own lock: of several instances starting together on one PostgreSQL database,
    /// exactly one makes it.
    /// `keep` runs before the commit (it writes the key file): when it fails, no key is made.
    public func bootstrapAdminKey(keep: (String) throws -> Void = { _ in }) throws -> String? {
        try store.write { tx in
            try tx.lockForBootstrap()
            guard try tx.keyCount() == 0 else { return nil }
            let made = KeyAuthority.make(scope: .admin, name: "first admin key", now: Date())
            try tx.insertKey(made.record)
            try keep(made.secret)
            return made.secret
        }
    }

    /// Starts the outbox workers and the webhook sender. Rows a previous run left on the wire go
    /// back to the queue first (this instance is the only one on an SQLite file); on a shared
    /// database only rows whose lease expired do, the others may be another instance's.
    public func startWorkers() throws {
        let released = try store.write { try store.isShared ? $0.releaseExpiredLeases(now: Date()) : $0.releaseAllLeases(now: Date()) }
        if released > 0 { log("outbox: \(released) rows were on the wire when the last run stopped; they are queued again") }
        dispatcher.start()
        webhooks.start()
        channelSweeper.start(self)
        renewer.start(self)
    }

    /// Stops the workers; claimed rows finish and are recorded.
    public func stopWorkers() async {
        await channelSweeper.stop()
        await renewer.stop()
        await dispatcher.stop()
        await webhooks.stop()
        await clients.shutdown()
    }

    // MARK: - Requests

    /// Which routes a listener serves: all of them, or (with `adminListen`) the admin routes on
    /// the admin listener and the app routes on the public one; key-less routes on both.
    public enum Listener: Sendable {
        case all, `public`, admin
        func serves(_ route: Route) -> Bool {
            switch self {
            case .all: true
            case .public: route.scope != .admin
            case .admin: route.scope != .app
            }
        }
    }

    /// Answers one HTTP request: route, key, rate limit, idempotency, then the handler.
    public func handle(_ request: HTTPRequest, on listener: Listener = .all) async -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let pathSegments = Array(segments)
        var routeName = "unmatched"
        let response: HTTPResponse
        do {
            let candidates = routes.compactMap { r in listener.serves(r) ? r.match(pathSegments).map { (r, $0) } : nil }
            guard !candidates.isEmpty else { throw APIError(404, "no-route", "no route for \(request.path.prefix(200))") }
            guard let (route, params) = candidates.first(where: { $0.0.method == request.method || ($0.0.method == "GET" && request.method == "HEAD") }) else {
                let allowed = Set(candidates.map(\.0.method)).sorted().joined(separator: ", ")
                throw APIError(405, "method-not-allowed", "\(request.method) is not allowed on \(candidates[0].0.pattern); allowed: \(allowed)")
            }
            routeName = "\(route.method) \(route.pattern)"
            for (name, value) in params { try Self.checkPathParameter(name, value) }
            response = try await run(route, request, params)
        } catch let error as APIError {
            response = Self.errorResponse(configuration.checkAnswers ? checkedError(error, routeName: routeName) : error)
        } catch let error as StoreError {
            log("store: \(error.message)")
            response = Self.errorResponse(APIError(503, "store-unavailable", "the database is unavailable; nothing was changed. Try again"))
        } catch {
            log("internal error on \(routeName): \(error)")
            response = Self.errorResponse(APIError(500, "internal", "internal error; nothing was changed"))
        }
        metrics.request(route: routeName, status: response.status)
        return response
    }

    private func run(_ route: Route, _ request: HTTPRequest, _ params: [String: String]) async throws -> HTTPResponse {
        var key: APIKeyRecord?
        var installation: InstallationRecord?
        let address = ClientAddress.of(request.remoteAddress, forwardedFor: request.header("x-forwarded-for"), trustedProxies: configuration.trustedProxies)
        /// What no installation or admin key vouches for is limited per client address.
        func admitAddress() throws {
            if let wait = addressBuckets.admit(address) { throw Self.rateLimited(wait, "over \(JSONValue.javaScriptNumber(configuration.addressRateLimit)) requests a second from this address without an installation credential") }
        }
        if let scope = route.scope {
            let header = request.header("authorization")
            // A client that keeps failing authentication is refused before any lookup.
            guard failureBuckets.hasRoom(address) else {
                throw Self.rateLimited(1, "too many failed authentications from this address")
            }
            do {
                if InstallationAuthority.isInstallationCredential(header) {
                    installation = try await installations.authenticate(header, store: store)
                } else {
                    key = try keys.authenticate(header, store: store)
                }
            } catch let error as APIError where error.status == 401 {
                _ = failureBuckets.admit(address)
                throw error
            }
            if let installation {
                guard route.deviceScoped else {
                    throw APIError(403, "forbidden", "\(route.method) \(route.pattern) is not open to an installation credential; it acts only on its own device, tokens, taps and receipts")
                }
                if let wait = installationBuckets.admit(installation.installationID) {
                    throw Self.rateLimited(wait, "over \(JSONValue.javaScriptNumber(configuration.installationRateLimit)) requests a second for this installation")
                }
            } else if let record = key {
                if scope == .admin && record.scope != .admin {
                    throw APIError(403, "forbidden", "\(route.method) \(route.pattern) needs an admin key; this is an app key (it can only create installations: POST /v1/installations)")
                }
                if route.deviceScoped && record.scope != .admin {
                    throw APIError(403, "installation-required", "an app key cannot write device state: create an installation with POST /v1/installations (app key) and call \(route.pattern) with its credential (Authorization: Bearer ll_inst_…)")
                }
                if record.scope == .admin {
                    if let wait = keys.admit(record.id) {
                        throw Self.rateLimited(wait, "over \(JSONValue.javaScriptNumber(configuration.rateLimit)) requests a second for this key")
                    }
                } else {
                    // The app key ships in every app: its budget is per address, never shared by all installs.
                    try admitAddress()
                }
            }
        } else {
            try admitAddress()
        }
        var idempotency: (String, String, String)?
        if route.method != "GET", let idem = request.header("idempotency-key") {
            guard (1...255).contains(idem.utf8.count), idem.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                throw APIError(400, "invalid-header", "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces")
            }
            let hash = Digest.hex(Digest.sha256(Array("\(route.method) \(request.path)\n".utf8) + request.body))
            // Scoped per credential: an installation's keys never meet another's or an admin key's.
            let keyID = installation?.installationID ?? key?.id ?? "-"
            if let previous = try store.write({ try $0.idempotentAnswer(keyID: keyID, key: idem) }), previous.status != 0 {
                guard previous.requestHash == hash else { throw Self.idempotencyReused(idem) }
                return HTTPResponse(status: previous.status, headers: [("content-type", "application/json"), ("idempotent-replayed", "true")], body: previous.body)
            }
            idempotency = (keyID, idem, hash)
        }
        var context = RequestContext(request: request, params: params, key: key, now: configuration.clock(), idempotency: idempotency)
        context.installation = installation
        context.clientAddress = address
        let answer = try await route.handler(self, context)
        if let replayed = answer.replayed {
            return HTTPResponse(status: answer.status, headers: [("content-type", "application/json"), ("idempotent-replayed", "true")], body: replayed)
        }
        dispatcher.changes.answered(route, params, status: answer.status)
        if let text = answer.text { return .text(answer.status, text, contentType: "text/plain; version=0.0.4; charset=utf-8") }
        if configuration.checkAnswers { try checkAnswer(answer.json, of: route) }
        return .json(answer.status, Self.bytes(answer.json))
    }

    static func rateLimited(_ wait: Double, _ what: String) -> APIError {
        APIError(429, "rate-limited", "\(what); retry in \(String(format: "%.2f", wait)) s", details: ["retryAfterSeconds": .number((wait * 100).rounded(.up) / 100)])
    }

    static func idempotencyReused(_ idem: String) -> APIError {
        APIError(422, "idempotency-key-reused", "Idempotency-Key '\(idem.prefix(64))' was used for a different request; use a new key for a new request")
    }

    /// Runs `body` in one transaction and, for a write with an `Idempotency-Key`, stores its
    /// answer in the same transaction.
    func commit(_ context: RequestContext, _ body: (any StoreTransaction) throws -> Answer) throws -> Answer {
        try store.write { tx in try Self.keepingIdempotentAnswer(body, context, tx) }
    }

    /// `commit` for the registrations, the API's hot writes: while another group of writes
    /// commits, the request suspends instead of blocking its HTTP thread, which serves other
    /// requests meanwhile; their writes then share one commit.
    func commitAsync(_ context: RequestContext, _ body: @escaping @Sendable (any StoreTransaction) throws -> Answer) async throws -> Answer {
        try await store.writeAsync { tx in try Self.keepingIdempotentAnswer(body, context, tx) }
    }

    /// `body`'s answer under the request's `Idempotency-Key` (when it has one): the key is claimed
    /// first in the same transaction, so of concurrent requests with one key exactly one runs
    /// `body` and the others get its answer (or 422 for a different request).
    private static func keepingIdempotentAnswer(_ body: (any StoreTransaction) throws -> Answer, _ context: RequestContext, _ tx: any StoreTransaction) throws -> Answer {
        guard let idem = context.idempotency else { return try body(tx) }
        if let previous = try tx.claimIdempotencyKey(keyID: idem.keyID, key: idem.key, requestHash: idem.hash, now: context.now) {
            guard previous.requestHash == idem.hash else { throw idempotencyReused(idem.key) }
            var replay = Answer(previous.status, .null)
            replay.replayed = previous.body
            return replay
        }
        let answer = try body(tx)
        try tx.saveIdempotentAnswer(keyID: idem.keyID, key: idem.key, answer: IdempotentAnswer(requestHash: idem.hash, status: answer.status, body: bytes(Self.replayable(answer))), now: context.now)
        return answer
    }

    static func bytes(_ json: JSONValue) -> [UInt8] { json.serialized() + [0x0A] }

    /// What an `Idempotency-Key` replay may repeat of `answer`: without its shown-once secrets.
    static func replayable(_ answer: Answer) -> JSONValue {
        guard !answer.shownOnce.isEmpty, var o = answer.json.objectValue else { return answer.json }
        let left = answer.shownOnce.filter { o[$0] != nil }
        guard !left.isEmpty else { return answer.json }
        for member in left { o[member] = nil }
        o["replayNote"] = .string("a replay of the first answer under this Idempotency-Key, without \(left.joined(separator: ", ")): a secret is shown once, in the first answer only, and is not stored")
        return .object(o)
    }

    static func errorResponse(_ error: APIError) -> HTTPResponse {
        var response = HTTPResponse.json(error.status, bytes(error.json))
        if let wait = error.details["retryAfterSeconds"]?.numberValue { response.headers.append(("retry-after", String(Int(wait.rounded(.up))))) }
        return response
    }

    /// Ids in paths: 1 to 200 characters of letters, digits and `._:-`.
    static func checkPathParameter(_ name: String, _ value: String) throws(APIError) {
        let ok = (1...200).contains(value.utf8.count) && value.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x3A || b == 0x2D
        }
        if !ok { throw APIError(400, "invalid-path", "\(name) must be 1 to 200 characters of letters, digits and . _ : -, got '\(value.prefix(60))'", field: name) }
    }

    /// A token as it may appear in answers and logs: its first 8 characters.
    static func prefix(_ token: String) -> String { String(token.prefix(8)) + "…" }

    /// A device token: hex, 16 to 200 bytes.
    static func checkToken(_ token: String, field: String = "token") throws(APIError) {
        guard token.utf8.count % 2 == 0, (32...400).contains(token.utf8.count),
              token.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw APIError.invalid(field, "expected a device token in hex (an even number of 32 to 400 hex digits), got \(token.utf8.count) characters")
        }
    }
}
