import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineCrypto
import LivelineKit
import LivelineService
import LivelineStore
import SimulatedPhoneFixture
import Synchronization

/// A real `liveline serve` (in process, real HTTP on loopback, a real SQLite file in a temporary
/// directory) with one app and an app key, plus a directory for the app's queue.
final class KitFixture: @unchecked Sendable {
    // Confinement: `server` is replaced only by the test's own task (restart), never concurrently.
    static let bundle = "com.example.flights"
    let directory: URL
    let appDirectory: URL
    var configuration: ServiceConfiguration
    var server: ServiceServer?
    let adminKey: String
    let appKey: String
    let clock = TestClock()

    init(configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("liveline-kit-test-\(UUID().uuidString.prefix(8))")
        appDirectory = directory.appendingPathComponent("app")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory.appendingPathComponent("liveline.db").path
        config.rateLimit = 1_000_000
        config.rateBurst = 1_000_000
        config.installationRateLimit = 1_000_000
        config.installationRateBurst = 1_000_000
        config.addressRateLimit = 1_000_000
        config.addressRateBurst = 1_000_000
        configure(&config)
        configuration = config
        let server = try ServiceServer.start(config) { _ in }
        self.server = server
        adminKey = server.firstAdminKey!
        let pem = try P256PrivateKey.generate().pkcs8PEM()
        let app = try await Self.call(server.url, "POST", "/v1/apps", key: adminKey, json: [
            "bundleID": .string(Self.bundle), "teamID": "TEAM000001", "keyID": "KEY0000001", "key": .string(pem), "environment": "sandbox"])
        precondition(app.status == 201, "app: \(app.json)")
        let key = try await Self.call(server.url, "POST", "/v1/keys", key: adminKey, json: ["scope": "app"])
        appKey = key.json["key"]!.stringValue!
        let secret = try await Self.call(server.url, "PUT", "/v1/apps/\(Self.bundle)/token-secret", key: adminKey, json: [:])
        precondition(secret.status == 200, "token secret: \(secret.json)")
        tokenSecret = secret.json["secret"]!.stringValue!
    }

    /// The backend's secret for user tokens and activity grants.
    let tokenSecret: String
    /// Each uploader's directory by its app-side device id (its installation credential lives there).
    private let directories = Mutex([String: URL]())

    var url: String { server!.url }
    /// The app's client; its backend grants the activities the app starts itself.
    var client: LivelineAppClient {
        var client = LivelineAppClient(baseURL: URL(string: url)!, appKey: appKey)
        let secret = tokenSecret
        client.activityGrantProvider = { id, activity in BackendTokens.activityGrant(activityID: activity, installationID: id, bundleID: Self.bundle, secret: secret) }
        client.userTokenProvider = { id, user in BackendTokens.userToken(userID: user, installationID: id, bundleID: Self.bundle, secret: secret) }
        return client
    }

    /// The service's device id (the installation id) of the app-side device id.
    func serviceID(_ device: String) -> String {
        guard let dir = directories.withLock({ $0[device] }) else { return device }
        return FileSecretStore(url: dir.appendingPathComponent("liveline-installation.json")).load()?.installationID ?? device
    }

    /// An uploader on the app's directory whose waits advance the test clock instead of sleeping.
    func uploader(device: String = "phone-1", directory: URL? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) throws -> TokenUploader {
        let clock = self.clock
        let environment = UploaderEnvironment(now: { clock.now }, random: { 0.5 }, sleep: { clock.advance($0) }, log: log)
        let dir = directory ?? appDirectory
        directories.withLock { $0[device] = dir }
        return try TokenUploader(directory: dir, client: client, deviceID: device, environment: environment)
    }

    func coordinator(_ uploader: TokenUploader, kinds: [any LiveActivityKind], authorization: (any LiveActivityAuthorization)? = nil,
                     configure: (inout LiveActivityCoordinator.Configuration) -> Void = { _ in }) throws -> LiveActivityCoordinator {
        var configuration = LiveActivityCoordinator.Configuration(device: Self.device(uploader.deviceID))
        configuration.drainsAutomatically = false
        configure(&configuration)
        let clock = self.clock
        return try LiveActivityCoordinator(uploader: uploader, kinds: kinds, authorization: authorization, configuration: configuration,
                                           directory: appDirectory, now: { clock.now })
    }

    static func device(_ id: String = "phone-1", ios: String = "18.2") -> DeviceRegistration {
        DeviceRegistration(deviceID: id, bundleID: bundle, iosVersion: ios)
    }

    /// Stops the service (its database stays).
    func stopServer() async {
        await server?.stop()
        server = nil
    }

    /// Starts a new service on the same database (a new port).
    func startServer() throws {
        server = try ServiceServer.start(configuration) { _ in }
    }

    func stop() async {
        await stopServer()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - What the service holds, read from its store

    func activityToken(_ activityID: String, device: String = "phone-1") throws -> String? {
        try server!.store.write { try $0.activityToken(activityID: activityID, deviceID: serviceID(device)) }?.token
    }

    func pushToStartToken(_ type: String = "FlightAttributes", device: String = "phone-1") throws -> String? {
        try server!.store.write { try $0.pushToStartToken(deviceID: serviceID(device), attributesType: type) }?.token
    }

    func deviceRecord(_ device: String = "phone-1") throws -> DeviceRecord? {
        try server!.store.write { try $0.device(serviceID(device)) }
    }

    func interactions(_ activityID: String) throws -> [InteractionRecord] {
        // The service keeps an installation's keys as "<installationID>/<key>"; the app's key is after the slash.
        try server!.store.write { try $0.interactions(activityID: activityID, limit: 100) }.map { record in
            var record = record
            if let d = record.deviceID, record.idempotencyKey.hasPrefix(d + "/") { record.idempotencyKey.removeFirst(d.count + 1) }
            return record
        }
    }

    struct Reply { var status: Int; var json: JSONValue }

    func admin(_ method: String, _ path: String, json: JSONValue? = nil) async throws -> Reply {
        try await Self.call(url, method, path, key: adminKey, json: json)
    }

    /// A request to the service, bounded (`SimulatedPhoneFixture.call`).
    static func call(_ base: String, _ method: String, _ path: String, key: String, json: JSONValue? = nil) async throws -> Reply {
        let reply = try await SimulatedPhoneFixture.call(base, method, path, key: key, json: json)
        return Reply(status: reply.status, json: reply.json)
    }
}

/// A clock tests move by hand; the uploader's waits move it too.
final class TestClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
    func advance(hours: Double) { date.withLock { $0 = $0.addingTimeInterval(hours * 3600) } }
}

/// A fresh device token, as ActivityKit hands it out.
func newToken() -> Data {
    Data((0..<32).map { _ in UInt8.random(in: 0...255) })
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
