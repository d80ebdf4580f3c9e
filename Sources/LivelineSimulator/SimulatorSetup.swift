import Foundation
import LivelineCore
import LivelineCrypto

/// A simulator described by a JSON file: keys, apps, devices, limits, faults.
///
/// ```json
/// {"environment": "sandbox", "seed": 1,
///  "keys": [{"keyID": "ABC123DEFG", "teamID": "DEF123GHIJ", "p8": "AuthKey_ABC123DEFG.p8"},
///           {"keyID": "XYZ", "teamID": "DEF123GHIJ", "publicKey": "xyz.pub.pem", "scope": "production", "topics": ["com.example.app"]}],
///  "apps": [{"bundleID": "com.example.app", "teamID": "DEF123GHIJ", "broadcast": true}],
///  "devices": [{"id": "phone", "name": "iPhone 16", "iOS": "18.2", "environment": "sandbox",
///               "apps": [{"bundleID": "com.example.app", "frequentUpdates": true,
///                         "activityTypes": ["VoltraAttributes", "FlightAttributes", "schemas/Score.json", {"name": "X", "contentState": {...}}]}]}],
///  "rules": {"maxActivitiesPerApp": 5, "updateBudgetPerHour": 15, "frequentUpdateBudgetPerHour": 240},
///  "maxConcurrentStreams": 1000, "rateLimit": {"count": 100, "seconds": 1},
///  "logCapacity": 10000, "eventCapacity": 10000, "dismissedActivityCapacity": 1000, "dismissedActivityRetention": 86400,
///  "retiredTokenCapacity": 10000, "authorizationCacheCapacity": 1000, "rateWindowCapacity": 10000,
///  "faults": [{"respond": "ServiceUnavailable", "probability": 0.1}, {"goAway": "Shutdown", "token": "ab12..."},
///             {"latencyMs": 200}, {"dropConnection": true}, {"streamLimit": 1, "skipFirst": 10},
///             {"goAway": "Shutdown", "every": 10000}]}
/// ```
/// Paths are relative to the file. Built-in activity types: `VoltraAttributes`, `FlightAttributes`.
public struct SimulatorSetup: Sendable {
    /// A device to create at start-up.
    public struct Device: Sendable {
        /// The device id (default `device-<n>`).
        public var id: String?
        /// A display name.
        public var name: String
        /// Its iOS version.
        public var osVersion: OSVersion
        /// Its tokens' environment (default: the simulator's).
        public var environment: APNSEnvironment?
        /// Apps to install.
        public var apps: [App]
        /// Failures it models on purpose (`"modes": {"forceQuit": true, "withholdsUpdateTokens": true}`).
        public var modes = DeviceModes()
    }

    /// An app to install on a device.
    public struct App: Sendable {
        /// The bundle id.
        public var bundleID: String
        /// Activity types the app registers.
        public var activityTypes: [ActivityType]
        /// `NSSupportsLiveActivitiesFrequentUpdates`.
        public var supportsFrequentUpdates: Bool
    }

    /// The APNs side.
    public var configuration: SimulatorConfiguration
    /// Devices to create.
    public var devices: [Device]
    /// Faults in force from the start.
    public var faults: [FaultRule]

    /// A setup from its parts.
    public init(configuration: SimulatorConfiguration, devices: [Device] = [], faults: [FaultRule] = []) {
        self.configuration = configuration
        self.devices = devices
        self.faults = faults
    }

    /// Reads a setup file.
    ///
    /// - Throws: `SimulatorError(.invalidConfiguration)` naming the file, the JSON path and the problem.
    public init(contentsOfFile path: String) throws(SimulatorError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SimulatorError(.invalidConfiguration, "cannot read simulator config '\(path)': \(FileManager.default.fileExists(atPath: path) ? "permission denied or a directory" : "no such file")")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(Array(data)) } catch {
            throw SimulatorError(.invalidConfiguration, "simulator config '\(path)' is not JSON: \(error)")
        }
        try self.init(json: json, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path, source: path)
    }

    /// Reads a setup from JSON; relative paths resolve against `baseDirectory`.
    public init(json: JSONValue, baseDirectory: String, source: String = "config") throws(SimulatorError) {
        func fail(_ where_: String, _ message: String) -> SimulatorError {
            SimulatorError(.invalidConfiguration, "\(source): \(where_): \(message)")
        }
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : baseDirectory + "/" + p }
        guard let root = json.objectValue else { throw fail("top level", "must be an object") }
        let known = ["environment", "seed", "keys", "apps", "devices", "rules", "maxConcurrentStreams", "rateLimit", "faults", "logCapacity", "idleTimeout",
                     "eventCapacity", "dismissedActivityCapacity", "dismissedActivityRetention",
                     "retiredTokenCapacity", "authorizationCacheCapacity", "rateWindowCapacity"]
        for key in root.keys where !known.contains(key) { throw fail(key, "unknown key (expected one of \(known.joined(separator: ", ")))") }
        var config = SimulatorConfiguration()
        if let e = root["environment"] {
            guard let s = e.stringValue, let env = APNSEnvironment(rawValue: s) else { throw fail("environment", "must be \"sandbox\" or \"production\", got \(e.jsonString)") }
            config.environment = env
        }
        if let s = root["seed"] {
            guard let n = s.numberValue, n >= 0, n == n.rounded(), n < 1.8e19 else { throw fail("seed", "must be a non-negative integer, got \(s.jsonString)") }
            config.seed = UInt64(n)
        }
        if let m = root["maxConcurrentStreams"] {
            guard let n = m.numberValue, n >= 1, n == n.rounded() else { throw fail("maxConcurrentStreams", "must be a positive integer, got \(m.jsonString)") }
            config.maxConcurrentStreams = Int(n)
        }
        if let m = root["logCapacity"] {
            guard let n = m.numberValue, n >= 0, n == n.rounded() else { throw fail("logCapacity", "must be a non-negative integer, got \(m.jsonString)") }
            config.logCapacity = Int(n)
        }
        let capacities: [(String, WritableKeyPath<SimulatorConfiguration, Int>, Double)] = [
            ("eventCapacity", \.eventCapacity, 0), ("dismissedActivityCapacity", \.dismissedActivityCapacity, 0),
            ("retiredTokenCapacity", \.retiredTokenCapacity, 0), ("authorizationCacheCapacity", \.authorizationCacheCapacity, 0),
            ("rateWindowCapacity", \.rateWindowCapacity, 1),
        ]
        for (name, field, least) in capacities {
            guard let m = root[name] else { continue }
            guard let n = m.numberValue, n >= least, n == n.rounded(), n < 1e15 else {
                throw fail(name, "must be \(least > 0 ? "a positive" : "a non-negative") integer, got \(m.jsonString)")
            }
            config[keyPath: field] = Int(n)
        }
        if let m = root["dismissedActivityRetention"] {
            guard let n = m.numberValue, n >= 0, n.isFinite else { throw fail("dismissedActivityRetention", "must be a non-negative number of seconds, got \(m.jsonString)") }
            config.dismissedActivityRetention = n
        }
        if let m = root["idleTimeout"] {
            guard let n = m.numberValue, n > 0 else { throw fail("idleTimeout", "must be a positive number of seconds, got \(m.jsonString)") }
            config.idleTimeout = n
        }
        if let r = root["rateLimit"] {
            guard let c = r["count"]?.numberValue, c >= 1, let s = r["seconds"]?.numberValue, s > 0 else {
                throw fail("rateLimit", "must be {\"count\": n >= 1, \"seconds\": s > 0}, got \(r.jsonString)")
            }
            config.rateLimit = RateLimit(count: Int(c), seconds: s)
        }
        for (i, k) in (root["keys"]?.arrayValue ?? []).enumerated() {
            let at = "keys[\(i)]"
            guard let kid = k["keyID"]?.stringValue, !kid.isEmpty else { throw fail(at, "needs \"keyID\"") }
            guard let team = k["teamID"]?.stringValue, !team.isEmpty else { throw fail(at, "needs \"teamID\"") }
            let publicKey: P256PublicKey
            do {
                if let p8 = k["p8"]?.stringValue {
                    publicKey = try P256PrivateKey(contentsOfFile: resolve(p8)).publicKey
                } else if let pub = k["publicKey"]?.stringValue {
                    publicKey = pub.contains("BEGIN PUBLIC KEY") ? try P256PublicKey(pem: pub) : try P256PublicKey(contentsOfFile: resolve(pub))
                } else {
                    throw fail(at, "needs \"p8\" (a .p8 file) or \"publicKey\" (a PEM file or PEM text)")
                }
            } catch let e as KeyError {
                throw fail(at, e.message)
            } catch let e as SimulatorError {
                throw e
            } catch {
                throw fail(at, "\(error)")
            }
            var scope = ProviderKey.Scope.both
            if let s = k["scope"] {
                guard let v = s.stringValue.flatMap(ProviderKey.Scope.init(rawValue:)) else { throw fail(at + ".scope", "must be both, sandbox or production, got \(s.jsonString)") }
                scope = v
            }
            let topics = k["topics"]?.arrayValue?.compactMap(\.stringValue)
            config.keys.append(ProviderKey(keyID: kid, teamID: team, publicKey: publicKey, scope: scope, topics: topics, relatedKeyID: k["relatedKeyID"]?.stringValue))
        }
        for (i, a) in (root["apps"]?.arrayValue ?? []).enumerated() {
            guard let bundle = a["bundleID"]?.stringValue, !bundle.isEmpty else { throw fail("apps[\(i)]", "needs \"bundleID\"") }
            guard let team = a["teamID"]?.stringValue ?? config.keys.first?.teamID else { throw fail("apps[\(i)]", "needs \"teamID\" (no key to take it from)") }
            config.apps.append(AppRegistration(bundleID: bundle, teamID: team, broadcastEnabled: a["broadcast"]?.boolValue ?? true, forbidden: a["forbidden"]?.boolValue ?? false))
        }
        if let r = root["rules"] {
            guard let o = r.objectValue else { throw fail("rules", "must be an object") }
            var rules = DeviceRules()
            for m in o {
                guard let n = m.value.numberValue, n >= 0 else { throw fail("rules.\(m.key)", "must be a non-negative number, got \(m.value.jsonString)") }
                switch m.key {
                case "maxActivitiesPerApp": rules.maxActivitiesPerApp = Int(n)
                case "updateBudgetPerHour": rules.updateBudgetPerHour = Int(n)
                case "frequentUpdateBudgetPerHour": rules.frequentUpdateBudgetPerHour = Int(n)
                case "pushToStartBudget": rules.pushToStartBudget = Int(n)
                case "pushToStartWindowMinutes": rules.pushToStartWindow = n * 60
                case "maxActiveHours": rules.maxActiveDuration = n * 3600
                case "maxTotalHours": rules.maxTotalDuration = n * 3600
                case "defaultDismissalHours": rules.defaultDismissalDelay = n * 3600
                default: throw fail("rules.\(m.key)", "unknown rule (expected maxActivitiesPerApp, updateBudgetPerHour, frequentUpdateBudgetPerHour, pushToStartBudget, pushToStartWindowMinutes, maxActiveHours, maxTotalHours, defaultDismissalHours)")
                }
            }
            config.deviceRules = rules
        }
        var devices: [Device] = []
        for (i, d) in (root["devices"]?.arrayValue ?? []).enumerated() {
            let at = "devices[\(i)]"
            var version: OSVersion = "18.2"
            if let v = d["iOS"] {
                guard let s = v.stringValue, let parsed = OSVersion(parsing: s) else { throw fail(at + ".iOS", "must be a version such as \"17.2\", got \(v.jsonString)") }
                version = parsed
            }
            var env: APNSEnvironment?
            if let e = d["environment"] {
                guard let s = e.stringValue, let v = APNSEnvironment(rawValue: s) else { throw fail(at + ".environment", "must be sandbox or production, got \(e.jsonString)") }
                env = v
            }
            var apps: [App] = []
            for (j, a) in (d["apps"]?.arrayValue ?? []).enumerated() {
                guard let bundle = a["bundleID"]?.stringValue else { throw fail("\(at).apps[\(j)]", "needs \"bundleID\"") }
                var types: [ActivityType] = []
                for (k, t) in (a["activityTypes"]?.arrayValue ?? [.string("VoltraAttributes")]).enumerated() {
                    types.append(try Self.activityType(t, at: "\(at).apps[\(j)].activityTypes[\(k)]", resolve: resolve, fail: fail))
                }
                apps.append(App(bundleID: bundle, activityTypes: types, supportsFrequentUpdates: a["frequentUpdates"]?.boolValue ?? false))
            }
            var modes = DeviceModes()
            if let m = d["modes"] {
                guard let o = m.objectValue else { throw fail(at + ".modes", "must be an object such as {\"forceQuit\": true}, got \(m.jsonString)") }
                for member in o {
                    guard let b = member.value.boolValue else { throw fail("\(at).modes.\(member.key)", "must be true or false, got \(member.value.jsonString)") }
                    switch member.key {
                    case "forceQuit": modes.forceQuit = b
                    case "withholdsUpdateTokens": modes.withholdsUpdateTokens = b
                    default: throw fail("\(at).modes.\(member.key)", "unknown mode (expected forceQuit, withholdsUpdateTokens)")
                    }
                }
            }
            devices.append(Device(id: d["id"]?.stringValue, name: d["name"]?.stringValue ?? "iPhone \(i + 1)", osVersion: version, environment: env, apps: apps, modes: modes))
        }
        var faults: [FaultRule] = []
        for (i, f) in (root["faults"]?.arrayValue ?? []).enumerated() {
            faults.append(try Self.fault(f, at: "faults[\(i)]", fail: fail))
        }
        self.init(configuration: config, devices: devices, faults: faults)
    }

    private static func activityType(_ t: JSONValue, at: String, resolve: (String) -> String, fail: (String, String) -> SimulatorError) throws(SimulatorError) -> ActivityType {
        switch t {
        case .string("VoltraAttributes"): return .voltra
        case .string("FlightAttributes"): return .type(FlightAttributes.self)
        case .string(let path):
            guard let data = FileManager.default.contents(atPath: resolve(path)) else {
                throw fail(at, "\"\(path)\" is neither a built-in type (VoltraAttributes, FlightAttributes) nor a readable schema file")
            }
            do { return .schema(try ActivitySchema(json: try JSONValue.parse(Array(data)))) } catch { throw fail(at, "schema \(path): \(error)") }
        case .object:
            do { return .schema(try ActivitySchema(json: t)) } catch { throw fail(at, "\(error)") }
        default:
            throw fail(at, "must be a type name, a schema file path or an inline schema object")
        }
    }

    private static func fault(_ f: JSONValue, at: String, fail: (String, String) -> SimulatorError) throws(SimulatorError) -> FaultRule {
        let action: FaultRule.Action
        if let r = f["respond"]?.stringValue {
            guard APNSReason(rawValue: r).isKnown else { throw fail(at + ".respond", "unknown APNs reason \"\(r)\"") }
            action = .respond(APNSReason(rawValue: r))
        } else if let r = f["goAway"]?.stringValue {
            guard APNSReason(rawValue: r).isKnown else { throw fail(at + ".goAway", "unknown APNs reason \"\(r)\"") }
            action = .goAway(APNSReason(rawValue: r))
        } else if f["dropConnection"]?.boolValue == true {
            action = .dropConnection
        } else if f["resetStream"]?.boolValue == true {
            action = .resetStream
        } else if let ms = f["latencyMs"]?.numberValue, ms >= 0 {
            action = .latency(ms / 1000)
        } else if let n = f["streamLimit"]?.numberValue, n >= 0 {
            action = .lowerStreamLimit(Int(n))
        } else {
            throw fail(at, "needs one of respond, goAway, dropConnection, resetStream, latencyMs, streamLimit")
        }
        var scope = FaultRule.Scope.all
        if let t = f["token"]?.stringValue { scope = .token(t) } else if let c = f["channel"]?.stringValue { scope = .channel(c) }
        let p = f["probability"]?.numberValue ?? 1
        guard (0...1).contains(p) else { throw fail(at + ".probability", "must be between 0 and 1, got \(p)") }
        if let every = f["every"]?.numberValue, every < 1 { throw fail(at + ".every", "must be at least 1, got \(every)") }
        return FaultRule(action, scope: scope, probability: p, skipFirst: Int(f["skipFirst"]?.numberValue ?? 0), limit: f["limit"]?.numberValue.map { Int($0) },
                         every: f["every"]?.numberValue.map { Int($0) })
    }

    /// A provider token signed with the `.p8` key in `keyFile`, for tools that drive the simulator
    /// (benchmarks, smoke tests).
    ///
    /// - Important: the token is a credential for an hour; do not log it.
    public static func providerToken(keyFile: String, keyID: String, teamID: String, issuedAt: Date = Date()) throws(SimulatorError) -> String {
        do {
            return try JWT.sign(keyID: keyID, teamID: teamID, issuedAt: issuedAt, key: try P256PrivateKey(contentsOfFile: keyFile))
        } catch {
            throw SimulatorError(.invalidConfiguration, "cannot sign a provider token with \(keyFile): \(error.message)")
        }
    }

    /// Builds the simulator: configuration, devices, apps, faults.
    public func makeSimulator(clock: any SimulatorClock = SystemClock()) throws(SimulatorError) -> Simulator {
        let sim = Simulator(configuration: configuration, clock: clock)
        for d in devices {
            let id = sim.addDevice(name: d.name, osVersion: d.osVersion, environment: d.environment, id: d.id)
            for a in d.apps { try sim.install(a.bundleID, on: id, activityTypes: a.activityTypes, supportsFrequentUpdates: a.supportsFrequentUpdates) }
            if d.modes != DeviceModes() { try sim.setModes(d.modes, on: id) }
        }
        for f in faults { sim.inject(f) }
        return sim
    }

    /// The setup used with no config file: a fresh key written to `directory` as `AuthKey_<kid>.p8`,
    /// one team, app `com.example.liveline`, and one iOS 18.2 iPhone with Voltra and Flight activity types.
    /// - Returns: the setup and the path of the key file.
    public static func generated(in directory: String, environment: APNSEnvironment = .sandbox) throws(SimulatorError) -> (setup: SimulatorSetup, keyFile: String, keyID: String, teamID: String) {
        let keyID = "SIM" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(7))
        let teamID = "SIMTEAM001"
        let key: P256PrivateKey
        let pem: String
        do {
            key = try P256PrivateKey.generate()
            pem = try key.pkcs8PEM()
        } catch { throw SimulatorError(.invalidConfiguration, "cannot generate a key: \(error.message)") }
        let path = directory + "/AuthKey_\(keyID).p8"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw SimulatorError(.invalidConfiguration, "cannot write \(path)")
            }
        } catch let e as SimulatorError { throw e } catch {
            throw SimulatorError(.invalidConfiguration, "cannot create \(directory): \(error.localizedDescription)")
        }
        let bundle = "com.example.liveline"
        var config = SimulatorConfiguration(environment: environment)
        config.keys = [ProviderKey(keyID: keyID, teamID: teamID, publicKey: key.publicKey)]
        config.apps = [AppRegistration(bundleID: bundle, teamID: teamID)]
        let device = Device(id: "iphone", name: "iPhone 16", osVersion: "18.2", environment: nil,
                            apps: [App(bundleID: bundle, activityTypes: [.voltra, .type(FlightAttributes.self)], supportsFrequentUpdates: true)])
        return (SimulatorSetup(configuration: config, devices: [device]), path, keyID, teamID)
    }
}
