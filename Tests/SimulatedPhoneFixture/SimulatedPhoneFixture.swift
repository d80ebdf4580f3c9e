import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import LivelineTesting
import Synchronization

/// Simulated iPhones whose app runs LivelineKit, against a real service (in process, HTTP on
/// loopback, SQLite in a temporary directory) that pushes over HTTP/2 to the simulator: the whole
/// loop that LivelineKit's and the example's end-to-end tests share.
///
/// `SimulatedPhoneFixture.run` builds it (a generated provider key, the phones and their apps
/// installed, the simulator's APNs hosts, the service, the app registered with the key, an app key
/// and the backend's token secret), runs the test's body, and stops everything however the body
/// ended. Every wait has a deadline: each request (`call`) at most `requestLimit`, each stop at
/// most `stopLimit`; past one the test fails with a message naming what did not finish.
///
/// Module: test support only (no product, no executable links it). It imports what it assembles:
/// Core, Kit, KitSimulator, Simulator, Service, and Testing for its deadlines.
public final class SimulatedPhoneFixture: Sendable {
    /// A phone on the simulator, with the app installed.
    public struct Phone: Sendable {
        public var id: String
        public var name: String
        public var osVersion: OSVersion
        public var environment: APNSEnvironment?
        public var activityTypes: [ActivityType]

        /// - Parameters:
        ///   - id: the simulator's device id (also the app's device id).
        ///   - osVersion: the phone's iOS version.
        ///   - environment: the phone's (and its app build's) APNs environment; sandbox when nil.
        ///   - activityTypes: what the installed app's ActivityKit decodes.
        public init(_ id: String, name: String = "iPhone", osVersion: OSVersion = "18.2", environment: APNSEnvironment? = nil, activityTypes: [ActivityType]) {
            self.id = id
            self.name = name
            self.osVersion = osVersion
            self.environment = environment
            self.activityTypes = activityTypes
        }
    }

    /// A service answer: the status and the JSON body (`.null` when the body is not JSON).
    public struct Reply: Sendable {
        public var status: Int
        public var json: JSONValue
    }

    /// The bundle the apps are installed under and the service registers.
    public let bundle: String
    /// The test's directory (removed by `run`).
    public let directory: String
    public let simulator: Simulator
    /// The simulator's sandbox host, and its production host when asked for.
    public let sandboxHost: SimulatorServer
    public let productionHost: SimulatorServer?
    public let server: ServiceServer
    public let adminKey: String
    /// The app key (scope app), as an app ships it.
    public let appKey: String
    /// The backend's secret for user tokens and activity grants.
    public let tokenSecret: String
    /// The generated provider key's team and key ids, and its file.
    public let teamID: String
    public let keyID: String
    public let keyFile: String
    /// The apps made by `app`, stopped by `run` before the service.
    private let apps = Mutex<[SimulatedPhoneApp]>([])

    /// The most a request to the service may take (its own `wait` is at most 20 s).
    public static let requestLimit: Duration = .seconds(45)
    /// The most stopping the service or a simulator host may take.
    public static let stopLimit: Duration = .seconds(20)

    private init(bundle: String, directory: String, simulator: Simulator, sandboxHost: SimulatorServer, productionHost: SimulatorServer?,
                 server: ServiceServer, adminKey: String, appKey: String, tokenSecret: String, teamID: String, keyID: String, keyFile: String) {
        self.bundle = bundle
        self.directory = directory
        self.simulator = simulator
        self.sandboxHost = sandboxHost
        self.productionHost = productionHost
        self.server = server
        self.adminKey = adminKey
        self.appKey = appKey
        self.tokenSecret = tokenSecret
        self.teamID = teamID
        self.keyID = keyID
        self.keyFile = keyFile
    }

    /// Builds the loop, runs `body` with it, then stops the service and the simulator's hosts and
    /// removes the directory, whether `body` returned or threw.
    /// - Parameters:
    ///   - phones: the simulated phones, each with the app installed.
    ///   - bundle: the app's bundle id.
    ///   - clock: the simulator's clock (a `VirtualClock` for scheduled activities).
    ///   - productionHost: also start a production APNs host (the service sends each token to its
    ///     environment's host) and register the app for both environments.
    ///   - configure: service settings beyond the database and the APNs hosts (schema files).
    /// - Throws: what the set-up or `body` throws; `TestingError` when a stop missed its deadline.
    public static func run<T: Sendable>(
        phones: [Phone],
        bundle: String = "com.example.flights",
        clock: any SimulatorClock = SystemClock(),
        productionHost wantsProduction: Bool = false,
        configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: (SimulatedPhoneFixture) async throws -> T
    ) async throws -> T {
        let directory = NSTemporaryDirectory() + "liveline-phones-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: bundle, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator(clock: clock)
        for phone in phones {
            _ = simulator.addDevice(name: phone.name, osVersion: phone.osVersion, environment: phone.environment, id: phone.id)
            _ = try simulator.install(bundle, on: phone.id, activityTypes: phone.activityTypes)
        }
        let certificates = try SimulatorCertificates.prepare(in: directory)
        let sandboxHost = try SimulatorServer.start(simulator: simulator, certificates: certificates)
        var stops: [(String, @Sendable () async -> Void)] = [("the simulator's sandbox host", { await sandboxHost.stop() })]
        var fixture: SimulatedPhoneFixture?
        let outcome: Result<T, any Error>
        do {
            let productionHost = wantsProduction ? try SimulatorServer.start(simulator: simulator, certificates: certificates, environment: .production) : nil
            if let productionHost { stops.append(("the simulator's production host", { await productionHost.stop() })) }
            var config = ServiceConfiguration()
            config.port = 0
            // Every answer the simulated phones get is checked against /openapi.json's schemas.
            config.checkAnswers = true
            config.database = directory + "/liveline.db"
            if let productionHost {
                config.apnsSandboxHost = "127.0.0.1:\(sandboxHost.port)"
                config.apnsProductionHost = "127.0.0.1:\(productionHost.port)"
            } else {
                config.apnsHost = "127.0.0.1:\(sandboxHost.port)"
            }
            config.caFile = sandboxHost.caFile
            configure(&config)
            let server = try ServiceServer.start(config) { _ in }
            stops.insert(("the service", { await server.stop() }), at: 0)
            guard let admin = server.firstAdminKey else { throw TestingError("the service made no first admin key") }
            let pem = try String(contentsOfFile: generated.keyFile, encoding: .utf8)
            var registration: JSONObject = ["bundleID": .string(bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID),
                                            "key": .string(pem), "environment": "sandbox"]
            if wantsProduction { registration["environments"] = ["sandbox", "production"] }
            let app = try await call(server.url, "POST", "/v1/apps", key: admin, json: .object(registration))
            guard app.status == 201 else { throw TestingError("registering \(bundle) answered \(app.status): \(app.json)") }
            let key = try await call(server.url, "POST", "/v1/keys", key: admin, json: ["scope": "app"])
            guard let appKey = key.json["key"]?.stringValue else { throw TestingError("making an app key answered \(key.status): \(key.json)") }
            let secret = try await call(server.url, "PUT", "/v1/apps/\(bundle)/token-secret", key: admin, json: [:])
            guard let tokenSecret = secret.json["secret"]?.stringValue else { throw TestingError("the token secret answered \(secret.status): \(secret.json)") }
            let made = SimulatedPhoneFixture(bundle: bundle, directory: directory, simulator: simulator, sandboxHost: sandboxHost, productionHost: productionHost,
                                             server: server, adminKey: admin, appKey: appKey, tokenSecret: tokenSecret,
                                             teamID: generated.teamID, keyID: generated.keyID, keyFile: generated.keyFile)
            fixture = made
            outcome = .success(try await body(made))
        } catch {
            outcome = .failure(error)
        }
        var late: [String] = []
        for app in fixture?.apps.withLock({ $0 }) ?? [] {
            if await finished(within: stopLimit, { await app.stop() }) == nil { late.append("an app") }
        }
        for (what, stop) in stops {
            if await finished(within: stopLimit, stop) == nil { late.append(what) }
        }
        let value = try outcome.get()
        guard late.isEmpty else { throw TestingError("waited \(stopLimit) for \(late.joined(separator: " and ")) to stop, in vain") }
        return value
    }

    /// The app's client (the app key), whose backend signs user tokens and activity grants.
    /// - Parameter secretStore: where the installation credential lives (the app's default when nil).
    public func client(secretStore: (any SecretStore)? = nil) -> LivelineAppClient {
        var client = LivelineAppClient(baseURL: URL(string: server.url)!, appKey: appKey, secretStore: secretStore)
        let secret = tokenSecret, bundle = bundle
        client.userTokenProvider = { id, user in BackendTokens.userToken(userID: user, installationID: id, bundleID: bundle, secret: secret) }
        client.activityGrantProvider = { id, activity in BackendTokens.activityGrant(activityID: activity, installationID: id, bundleID: bundle, secret: secret) }
        return client
    }

    /// The app on a phone (its container `<directory>/app-<device id>` unless `container` names
    /// one), stopped by `run` at the end.
    /// - Parameters:
    ///   - device: the registration the app sends (its `deviceID` is the phone's id).
    ///   - attributesTypes: the activity types the app declares.
    ///   - client: the service client (`client()` when nil).
    ///   - configure: coordinator settings (receipts, the logical id).
    public func app(_ device: DeviceRegistration, attributesTypes: [String] = ["FlightAttributes"], client: LivelineAppClient? = nil, container: String? = nil,
                    configure: @Sendable (inout LiveActivityCoordinator.Configuration) -> Void = { _ in }) throws -> SimulatedPhoneApp {
        let app = try SimulatedPhoneApp(device: device, attributesTypes: attributesTypes, client: client ?? self.client(),
                                        directory: URL(fileURLWithPath: container ?? directory + "/app-\(device.deviceID)"), configure: configure)
        apps.withLock { $0.append(app) }
        return app
    }

    /// The registration an app on `phone` sends (this fixture's bundle).
    public func device(_ phone: String, iosVersion: String = "18.2", userID: String? = nil) -> DeviceRegistration {
        DeviceRegistration(deviceID: phone, bundleID: bundle, iosVersion: iosVersion, userID: userID)
    }

    /// A request to the service with the admin key (or `key`), bounded by `requestLimit`.
    public func call(_ method: String, _ path: String, key: String? = nil, json: JSONValue? = nil) async throws -> Reply {
        try await Self.call(server.url, method, path, key: key ?? adminKey, json: json)
    }

    /// The activity once its deliveries settle (the service's `?wait=20`).
    public func settled(_ activityID: String) async throws -> Reply {
        try await call("GET", "/v1/activities/\(activityID)?wait=20")
    }

    /// A request to `base` with `key` as the bearer, bounded by `requestLimit`.
    /// - Throws: `TestingError` naming the request when no answer came in time.
    public static func call(_ base: String, _ method: String, _ path: String, key: String, json: JSONValue? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = Double(requestLimit.components.seconds)
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let json { request.httpBody = Data(json.serialized()) }
        let sent = request
        let (data, status) = try await withDeadline("\(method) \(path) to answer", within: requestLimit) { () async throws -> (Data, Int?) in
            let (data, response) = try await URLSession.shared.data(for: sent)
            return (data, (response as? HTTPURLResponse)?.statusCode)
        }
        guard let status else { throw TestingError("\(method) \(path): not an HTTP answer") }
        return Reply(status: status, json: (try? JSONValue.parse(Array(data))) ?? .null)
    }
}
