import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineCrypto
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting

/// A JSON answer from the service.
struct Reply: Sendable {
    var status: Int
    var json: JSONValue
    var headers: [String: String]
    var errorCode: String? { json["error"]?["code"]?.stringValue }
    var errorMessage: String { json["error"]?["message"]?.stringValue ?? "" }
}

/// Talks to the service over real HTTP on loopback.
struct APIClient: Sendable {
    var baseURL: String
    var key: String?

    func call(_ method: String, _ path: String, json: JSONValue? = nil, raw: [UInt8]? = nil, key: String?? = .none, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        let k: String? = key ?? self.key
        if let k { request.setValue("Bearer \(k)", forHTTPHeaderField: "Authorization") }
        for (n, v) in headers { request.setValue(v, forHTTPHeaderField: n) }
        if let json { request.httpBody = Data(json.serialized()) } else if let raw { request.httpBody = Data(raw) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (n, v) in http.allHeaderFields { headers[String(describing: n).lowercased()] = String(describing: v) }
        let json = (try? JSONValue.parse(Array(data))) ?? .string(String(decoding: data, as: UTF8.self))
        return Reply(status: http.statusCode, json: json, headers: headers)
    }
}

/// How a fixture opens its service's store (a struct, so a fixture's trailing closure stays its `configure`).
struct StoreOpening {
    let open: (ServiceConfiguration) throws -> any Store
}

/// A simulator with iPhones on loopback (HTTP/2 + TLS) and the service in front of it, on a real
/// SQLite file in a temporary directory.
final class ServiceFixture: @unchecked Sendable {
    static let bundle = "com.example.flights"
    let directory: String
    let simulator: Simulator
    let simulatorServer: SimulatorServer
    /// With `productionHost`: the same simulator listening as APNs' production host too (the first
    /// listener plays the sandbox host); the service sends production tokens' pushes there.
    let productionServer: SimulatorServer?
    let keyPEM: String
    let keyID: String
    let teamID: String
    var server: ServiceServer
    let admin: APIClient
    let app: APIClient
    var configuration: ServiceConfiguration

    /// Phones to create: (id, iOS).
    /// `store`, when given, opens the service's store from the configuration (a test wrapping a real one).
    /// `clock`, when given, is the time of the simulator and the service both (RenewalTests).
    init(phones: [(String, OSVersion)] = [("phone-1", "18.2")], productionHost: Bool = false, store: StoreOpening? = nil, clock: VirtualClock? = nil,
         configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        directory = NSTemporaryDirectory() + "liveline-service-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: generated.teamID)]
        setup.configuration.logCapacity = 1_000_000
        if clock != nil { setup.configuration.idleTimeout = 30 * 86_400 }  // the virtual clock jumps hours between a connection's pushes
        simulator = try setup.makeSimulator(clock: clock.map { $0 as any SimulatorClock } ?? SystemClock())
        for (id, ios) in phones {
            _ = simulator.addDevice(name: id, osVersion: ios, id: id)
            _ = try simulator.install(Self.bundle, on: id, activityTypes: [.type(FlightAttributes.self), .voltra])
        }
        let certificates = try SimulatorCertificates.prepare(in: directory)
        simulatorServer = try SimulatorServer.start(simulator: simulator, certificates: certificates)
        productionServer = productionHost ? try SimulatorServer.start(simulator: simulator, certificates: certificates, environment: .production) : nil
        keyPEM = String(decoding: FileManager.default.contents(atPath: generated.keyFile)!, as: UTF8.self)
        keyID = generated.keyID
        teamID = generated.teamID
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory + "/liveline.db"
        config.apnsHost = "127.0.0.1:\(simulatorServer.port)"
        config.caFile = simulatorServer.caFile
        if let productionServer { config.apnsProductionHost = "127.0.0.1:\(productionServer.port)" }
        config.retryBase = .milliseconds(50)
        // Tests register hundreds of phones at loopback speed; the rate-limit test sets its own.
        config.rateLimit = 1_000_000
        config.rateBurst = 1_000_000
        // The apps' .p8 keys are stored encrypted in every test, under a key made for the run.
        config.kek = SecretBox.generateKeyText()
        // Every answer of every service test is checked against /openapi.json's schemas.
        config.checkAnswers = true
        if let clock { config.clock = { clock.now } }
        configure(&config)
        configuration = config
        server = try store.map { try ServiceServer.start(config, store: try $0.open(config)) { _ in } } ?? ServiceServer.start(config) { _ in }
        let adminKey = server.firstAdminKey!
        admin = APIClient(baseURL: server.adminURL ?? server.url, key: adminKey)
        _ = try await admin.call("POST", "/v1/apps", json: ["bundleID": .string(Self.bundle), "teamID": .string(teamID), "keyID": .string(keyID), "key": .string(keyPEM), "environment": "sandbox"])
        let made = try await admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(Self.bundle)])
        app = APIClient(baseURL: server.url, key: made.json["key"]?.stringValue)
    }

    func stop() async {
        await server.stop()
        await simulatorServer.stop()
        await productionServer?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Registers a phone and its push-to-start token with the service, as its app would.
    func register(_ phone: String, ios: String = "18.2", user: String? = nil) async throws {
        var body: JSONObject = ["bundleID": .string(Self.bundle), "iosVersion": .string(ios)]
        if let user { body["userID"] = .string(user) }
        let d = try await admin.call("PUT", "/v1/devices/\(phone)", json: .object(body))
        precondition(d.status == 201 || d.status == 200, "device: \(d.json)")
        let token = simulator.app(Self.bundle, on: phone)!.pushToStartTokens["FlightAttributes"]!
        let t = try await admin.call("PUT", "/v1/devices/\(phone)/push-to-start/FlightAttributes", json: ["token": .string(token)])
        precondition(t.status == 201 || t.status == 200, "token: \(t.json)")
    }

    static let attributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"]
    static func state(gate: String = "B12", status: String = "scheduled") -> JSONValue {
        ["status": .string(status), "gate": .string(gate), "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false]
    }

    /// A start of the flight; `channel` "none" (the default here): the token path these suites test,
    /// without the channel the service would create on demand for an iOS 18 phone (ActivityChannelTests).
    func startBody(users: [String]? = nil, devices: [String]? = nil, channel: String? = "none") -> JSONValue {
        var audience = JSONObject()
        if let users { audience["userIDs"] = .array(users.map(JSONValue.string)) }
        if let devices { audience["deviceIDs"] = .array(devices.map(JSONValue.string)) }
        var body: JSONObject = ["attributesType": "FlightAttributes", "attributes": Self.attributes, "contentState": Self.state(),
                                "alert": ["title": "LL 1234", "body": "Tracking"], "audience": .object(audience)]
        if let channel { body["channel"] = .string(channel) }
        return .object(body)
    }

    /// Waits (on the service's own long poll) until every push of the activity is final.
    func settled(_ activityID: String) async throws -> Reply {
        try await admin.call("GET", "/v1/activities/\(activityID)?wait=20&limit=10000")
    }

    /// The simulator's activity for a logical id on a phone: the id its attributes declare
    /// (FlightAttributes), or Voltra's activity name (VoltraAttributes keeps no other id).
    func deviceActivity(_ activityID: String, on phone: String) -> ActivitySnapshot? {
        simulator.activities().last {
            $0.deviceID == phone && ($0.attributes[ActivitySchema.activityIDKey] ?? $0.attributes["name"])?.stringValue == activityID
        }
    }

    /// Starts an activity by push-to-start and registers the update token the phone issued.
    func startAndRegister(_ activityID: String, phones: [String]) async throws {
        let r = try await admin.call("POST", "/v1/activities/\(activityID)/start", json: startBody(devices: phones))
        precondition(r.status == 202, "start: \(r.json)")
        let settled = try await settled(activityID)
        for phone in phones {
            // A failed test, not a crash of every suite, when the start did not reach the phone in time.
            guard let token = deviceActivity(activityID, on: phone)?.pushToken else {
                throw TestingError("the start of \(activityID) did not reach \(phone) within the settle wait: \(settled.json)")
            }
            let t = try await admin.call("PUT", "/v1/activities/\(activityID)/tokens/\(phone)", json: ["token": .string(token)])
            precondition(t.status == 201, "token: \(t.json)")
        }
    }
}
