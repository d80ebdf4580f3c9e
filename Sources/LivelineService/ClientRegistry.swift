import Foundation
import LivelineAPNS
import LivelineCrypto
import LivelineStore
import Synchronization

/// One `APNSClient` per app and APNs environment, made from the app's stored credentials the first
/// time it is needed and replaced when the app is registered again with other credentials.
final class ClientRegistry: Sendable {
    private let clients = Mutex([String: (app: AppRecord, client: APNSClient)]())
    private let configuration: ServiceConfiguration
    private let vault: AppKeyVault
    private let madeCount = Atomic<Int>(0)
    /// Held while a client is made: of callers asking at once for a client not made yet, one makes
    /// it and the others get that one (a client made twice had the first shut down under its user).
    private let making = NSLock()
    /// How many clients this registry has made (tests: one per app and credentials).
    var built: Int { madeCount.load(ordering: .relaxed) }

    init(configuration: ServiceConfiguration, vault: AppKeyVault) {
        self.configuration = configuration
        self.vault = vault
    }

    /// Where an app's pushes to tokens of `environment` (`sandbox` or `production`; `nil`: the app's default) go.
    func environment(for app: AppRecord, tokens environment: String? = nil) throws(APIError) -> APNSConfiguration.Environment {
        let environment = environment ?? app.environment
        let perEnvironment = environment == "production" ? configuration.apnsProductionHost : configuration.apnsSandboxHost
        if let override = perEnvironment ?? configuration.apnsHost {
            let parts = override.split(separator: ":")
            guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else {
                throw APIError(500, "configuration", "apnsHost must be host:port, got '\(override)'")
            }
            return .custom(host: String(parts[0]), port: port, caFile: configuration.caFile)
        }
        return environment == "production" ? .production : .sandbox
    }

    func client(for app: AppRecord, tokens environment: String? = nil) throws(APIError) -> APNSClient {
        let environment = environment ?? app.environment
        let slot = app.bundleID + " " + environment
        if let existing = clients.withLock({ $0[slot] }), existing.app == app { return existing.client }
        making.lock()
        defer { making.unlock() }
        if let existing = clients.withLock({ $0[slot] }), existing.app == app { return existing.client }
        let key: P256PrivateKey
        let pem: String
        do { pem = try vault.open(app.keyPEM, bundleID: app.bundleID) } catch { throw APIError(500, "bad-app-key", error.message) }
        do { key = try P256PrivateKey(pem: pem) } catch {
            throw APIError(500, "bad-app-key", "the stored key of \(app.bundleID) cannot be read: \(error.message)")
        }
        var retries = APNSConfiguration.Retries()
        retries.maxRetries = 0  // the outbox retries, with backoff that survives a restart
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: .token(APNSTokenProvider(key: key, keyID: app.keyID, teamID: app.teamID, clock: configuration.clock)), environment: try self.environment(for: app, tokens: environment),
            connectionCount: configuration.connections, retries: retries, maxInFlight: configuration.maxInFlight))
        madeCount.add(1, ordering: .relaxed)
        let replaced = clients.withLock { clients -> APNSClient? in
            let old = clients[slot]?.client
            clients[slot] = (app, client)
            return old
        }
        if let replaced { Task { await replaced.shutdown() } }
        return client
    }

    func shutdown() async {
        let all = clients.withLock { c in
            defer { c.removeAll() }
            return c.values.map(\.client)
        }
        for client in all { await client.shutdown() }
    }
}
