import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineToolSupport

/// `liveline fixtures`: the attributes and content states of a type exactly as the service pushes
/// them, and an XCTest file that decodes each with the app's own type.
enum FixturesCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline fixtures", abstract: "Write an attributes type's pushed JSON and an XCTest file that decodes it with the app's type.",
        usage: "--type NAME|--schema FILE (--out DIR | --check DIR) [--module NAME]",
        options: [
            .init(name: "type", valueName: "NAME", help: "A built-in type (FlightAttributes)."),
            .init(name: "schema", valueName: "FILE", help: "A schema file (format: liveline lint --help)."),
            .init(name: "out", valueName: "DIR", help: "Where to write the JSON files and <Type>FixtureTests.swift."),
            .init(name: "check", valueName: "DIR", help: "Write nothing: exit 1, naming each difference, when the fixtures committed in DIR are not what the service pushes now."),
            .init(name: "module", valueName: "NAME", help: "The app module the test imports with @testable (default: the type's name without Attributes)."),
        ],
        positionals: 0...0,
        discussion: """
        Each state is sent through a real liveline serve to a simulated iPhone, in process on
        loopback, and what the phone received is written: DIR/attributes-<state>.json and
        DIR/content-state-<state>.json, for typical values, every optional left out, edge values,
        and each case of each enumeration. Dates are what a default JSONDecoder reads (seconds
        since 2001). Drop the generated test into the app's test target: a server change the app
        would silently fail to decode then fails the app's tests instead of the Lock Screen.

        --check DIR is for the server's CI, with the schema the service runs with: the app's
        fixture test only protects the app while its fixtures are current. A schema change (a
        renamed, retyped or new field, a new enumeration case) makes the check fail with each
        file that differs, is missing or is no longer pushed, until the fixtures are written
        again and committed with the app. Exit status: 0 current, 1 drifted, 64 usage.
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let out: String, checking: Bool
        switch (arguments.value("out"), arguments.value("check")) {
        case (let dir?, nil): (out, checking) = (dir, false)
        case (nil, let dir?): (out, checking) = (dir, true)
        case (.some, .some): throw UsageError(message: "give --out DIR to write the fixtures or --check DIR to compare them, not both", helpPath: spec.path)
        case (nil, nil): throw UsageError(message: "give --out DIR to write the fixtures, or --check DIR to compare committed ones", helpPath: spec.path)
        }
        let schema: ActivitySchema
        var schemaFile: String?
        switch (arguments.value("type"), arguments.value("schema")) {
        case (let name?, nil):
            guard name == FlightAttributes.schema.name else {
                throw UsageError(message: "--type: unknown or unsupported type '\(name)' (built in: FlightAttributes; others: --schema FILE)", helpPath: spec.path)
            }
            schema = FlightAttributes.schema
        case (nil, let file?) where file == FlightAttributes.schema.name:
            schema = FlightAttributes.schema
        case (nil, let file?):
            guard let parsed = try PayloadBuilder.schema(arguments) else { throw CLIError(message: "no schema in \(file)") }
            schema = parsed
            schemaFile = file
        default:
            throw UsageError(message: "give one of --type NAME or --schema FILE", helpPath: spec.path)
        }
        let module = arguments.value("module") ?? (schema.name.hasSuffix("Attributes") ? String(schema.name.dropLast("Attributes".count)) : schema.name)
        var isDirectory: ObjCBool = false
        if checking, !FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CLIError(message: "cannot read the committed fixtures in \(out): no such directory")
        }
        let fixtures = try await FixturePipeline.capture(schema, schemaFile: schemaFile)
        let testFile = "\(schema.name)FixtureTests.swift"
        let test = FixtureTestFile.swift(schema: schema, module: module, fixtures: fixtures)
        if checking {
            let drift = try FixtureDrift.compare(fixtures, test: (testFile, test), in: out)
            for line in drift { Console.out(line) }
            guard drift.isEmpty else {
                let source = schemaFile.map { "--schema \($0)" } ?? "--type \(schema.name)"
                Console.err("error: the fixtures in \(out) no longer match what the service pushes for \(schema.name) (\(drift.count) difference\(drift.count == 1 ? "" : "s")) [fixture-drift]: run 'liveline fixtures \(source) --out \(out)', commit them with the app, and fix the app's type if its fixture test then fails")
                return 1
            }
            Console.out("\(schema.name): the \(fixtures.files.count + 1) files in \(out) are what the service pushes now")
            return 0
        }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            for (name, json) in fixtures.files {
                try Data(json.prettyPrinted().utf8).write(to: URL(fileURLWithPath: out + "/" + name))
            }
            try Data(test.utf8).write(to: URL(fileURLWithPath: out + "/" + testFile))
        } catch {
            throw CLIError(message: "cannot write to \(out): \(error.localizedDescription)")
        }
        Console.out("\(schema.name): \(fixtures.attributes.count) attributes and \(fixtures.contentStates.count) content states, as the service pushed them, in \(out)")
        Console.out("test: \(out)/\(schema.name)FixtureTests.swift (@testable import \(module))")
        return 0
    }
}

/// `--check`: committed fixtures against the ones captured now, one line per difference.
enum FixtureDrift {
    static func compare(_ fixtures: CapturedFixtures, test: (name: String, text: String), in directory: String) throws -> [String] {
        guard let committed = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw CLIError(message: "cannot read the committed fixtures in \(directory): no such directory")
        }
        var lines: [String] = []
        let expected = Set(fixtures.files.map(\.0) + [test.name])
        for (name, now) in fixtures.files {
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                lines.append("missing: \(name): the service now pushes this state; the app's test never decodes it")
                continue
            }
            guard let was = try? JSONValue.parse(Array(data)) else {
                lines.append("changed: \(name): the committed file is not JSON")
                continue
            }
            let changes = differences(was, now, path: "")
            if !changes.isEmpty { lines.append("changed: \(name): " + changes.joined(separator: "; ")) }
        }
        for name in committed.sorted() where !expected.contains(name) && (name.hasSuffix(".json") && (name.hasPrefix("attributes-") || name.hasPrefix("content-state-"))) {
            lines.append("stale: \(name): the service no longer pushes this state")
        }
        let committedTest = FileManager.default.contents(atPath: directory + "/" + test.name).map { String(decoding: $0, as: UTF8.self) }
        if committedTest == nil {
            lines.append("missing: \(test.name): the app's test that decodes the fixtures")
        } else if committedTest != test.text {
            lines.append("changed: \(test.name): it does not decode what the service pushes now")
        }
        return lines
    }

    /// Where two JSON values part: keys added or removed, values that changed (with their paths).
    static func differences(_ was: JSONValue, _ now: JSONValue, path: String) -> [String] {
        let here = path.isEmpty ? "the value" : path
        switch (was, now) {
        case (.object(let a), .object(let b)):
            var out: [String] = []
            let keys = a.map(\.key) + b.map(\.key).filter { a[$0] == nil }
            for key in keys {
                let sub = path.isEmpty ? key : path + "." + key
                switch (a[key], b[key]) {
                case (nil, let v?): out.append("\(sub) is new (\(describe(v)))")
                case (let v?, nil): out.append("\(sub) is gone (was \(describe(v)))")
                case (let x?, let y?) where x != y: out += differences(x, y, path: sub)
                default: break
                }
            }
            return out
        default:
            return was == now ? [] : ["\(here) was \(describe(was)), now \(describe(now))"]
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        let text = value.serialized()
        return text.count > 60 ? String(decoding: text.prefix(57), as: UTF8.self) + "…" : String(decoding: text, as: UTF8.self)
    }
}

/// What the phone received, by state.
struct CapturedFixtures {
    var attributes: [(name: String, json: JSONValue)] = []
    var contentStates: [(name: String, json: JSONValue)] = []

    var files: [(String, JSONValue)] {
        attributes.map { ("attributes-\($0.name).json", $0.json) } + contentStates.map { ("content-state-\($0.name).json", $0.json) }
    }
}

/// Sends each state through a real service to a simulated iPhone, both in process on loopback.
enum FixturePipeline {
    static let bundle = "com.example.fixtures"

    static func capture(_ schema: ActivitySchema, schemaFile: String?) async throws -> CapturedFixtures {
        let directory = NSTemporaryDirectory() + "liveline-fixtures-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: bundle, teamID: generated.teamID)]
        // One start per fixture: the capture is not about the device's push-to-start budget (lifted in the service too).
        setup.configuration.deviceRules.pushToStartBudget = .max
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone", osVersion: "18.2", id: "phone")
        let type: ActivityType = schemaFile == nil ? .type(FlightAttributes.self) : .schema(schema)
        _ = try simulator.install(bundle, on: "phone", activityTypes: [type])
        let simulatorServer = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: directory))
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory + "/liveline.db"
        config.apnsHost = "127.0.0.1:\(simulatorServer.port)"
        config.caFile = simulatorServer.caFile
        config.startBudget = 10_000
        config.immediateBudgetPerHour = 10_000
        config.rateLimit = 1_000_000
        config.rateBurst = 1_000_000
        if let schemaFile { config.schemaFiles = [schemaFile] }
        let server: ServiceServer
        do { server = try ServiceServer.start(config) { _ in } } catch {
            await simulatorServer.stop()
            throw CLIError(message: "cannot start the service: \(error)")
        }
        do {
            let result = try await run(schema, simulator: simulator, server: server, generated: generated)
            await server.stop()
            await simulatorServer.stop()
            return result
        } catch {
            await server.stop()
            await simulatorServer.stop()
            throw error
        }
    }

    private static func run(_ schema: ActivitySchema, simulator: Simulator, server: ServiceServer,
                            generated: (setup: SimulatorSetup, keyFile: String, keyID: String, teamID: String)) async throws -> CapturedFixtures {
        let admin = ServiceHTTPClient(baseURL: server.url, key: server.firstAdminKey)
        let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile) ?? Data(), as: UTF8.self)
        _ = try await admin.expect("POST", "/v1/apps", ["bundleID": .string(bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID),
                                                        "key": .string(pem), "environment": "sandbox"])
        _ = try await admin.expect("PUT", "/v1/devices/phone", ["bundleID": .string(bundle), "iosVersion": "18.2"])
        guard let pts = simulator.app(bundle, on: "phone")?.pushToStartTokens[schema.name] else { throw CLIError(message: "the simulated phone has no push-to-start token") }
        _ = try await admin.expect("PUT", "/v1/devices/phone/push-to-start/\(schema.name)", ["token": .string(pts)])

        var captured = CapturedFixtures()
        let states = FixtureStates.contentStates(schema)
        for (index, attributes) in FixtureStates.attributes(schema).enumerated() {
            let activityID = "fixture-\(index)"
            let before = Set(simulator.activities().map(\.id))
            let start = try await admin.expect("POST", "/v1/activities/\(activityID)/start", [
                "attributesType": .string(schema.name), "attributes": attributes.value, "contentState": states[0].value, "alert": ["title": "Fixture", "body": .string(attributes.name)],
                "audience": ["deviceIDs": ["phone"]], "channel": "none"])  // the token path: the updates below go to the update token
            try await settled(admin, activityID, what: "the start with attributes '\(attributes.name)'", sendID: start["sendIDs"]?.arrayValue?.first)
            // The new activity on the phone (the device drops the service's key unless the type declares it).
            guard let activity = simulator.activities().last(where: { $0.deviceID == "phone" && !before.contains($0.id) }) else {
                throw CLIError(message: "the phone did not start an activity with attributes '\(attributes.name)' (it could not decode them): \(simulator.log().last.map { "\($0.verdict)" } ?? "")")
            }
            var received = activity.attributes
            if case .object(var o) = received { o[ActivitySchema.activityIDKey] = nil; received = .object(o) }
            captured.attributes.append((attributes.name, received))
            guard index == 0 else { continue }
            captured.contentStates.append((states[0].name, activity.contentState))
            // As the app would: the update token, so the updates below reach the phone.
            guard let token = activity.pushToken else { throw CLIError(message: "the phone's activity has no update token") }
            _ = try await admin.expect("PUT", "/v1/activities/\(activityID)/tokens/phone", ["token": .string(token)])
            for state in states.dropFirst() {
                let sent = try await admin.expect("POST", "/v1/activities/\(activityID)/update", ["contentState": state.value])
                try await settled(admin, activityID, what: "the content state '\(state.name)'", sendID: sent["sendID"])
                guard let now = simulator.activity(activity.id), now.droppedCount == 0 else {
                    throw CLIError(message: "the phone dropped the content state '\(state.name)': it could not decode it")
                }
                captured.contentStates.append((state.name, now.contentState))
            }
        }
        return captured
    }

    private static func settled(_ admin: ServiceHTTPClient, _ activityID: String, what: String, sendID: JSONValue?) async throws {
        let snapshot = try await admin.expect("GET", "/v1/activities/\(activityID)?wait=20")
        for d in snapshot["deliveries"]?.arrayValue ?? [] where d["sendID"] == sendID && d["state"]?.stringValue != "sent" {
            throw CLIError(message: "\(what) was not delivered: \(d["state"]?.stringValue ?? "?") \(d["reason"]?.stringValue ?? "")")
        }
    }
}

/// The XCTest file for the app's test target.
enum FixtureTestFile {
    static func swift(schema: ActivitySchema, module: String, fixtures: CapturedFixtures) -> String {
        var lines = [
            "// Generated by `liveline fixtures` for \(schema.name): what liveline serve pushes, state by state.",
            "// Do not edit; run it again when the server's types change. Each test decodes one push the way",
            "// ActivityKit does (a default JSONDecoder: dates as seconds since 2001, data as base64).",
            "import Foundation",
            "import XCTest",
            "@testable import \(module)",
            "",
            "final class \(schema.name)FixtureTests: XCTestCase {",
            "    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {",
            "        try JSONDecoder().decode(T.self, from: Data(json.utf8))",
            "    }",
        ]
        for (name, json) in fixtures.attributes {
            lines += ["", "    func testAttributes\(identifier(name))() throws {",
                      "        XCTAssertNoThrow(try decode(\(schema.name).self, ##\"\(json.serialized().asString)\"##))", "    }"]
        }
        for (name, json) in fixtures.contentStates {
            lines += ["", "    func testContentState\(identifier(name))() throws {",
                      "        XCTAssertNoThrow(try decode(\(schema.name).ContentState.self, ##\"\(json.serialized().asString)\"##))", "    }"]
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `status-delayed` → `StatusDelayed`.
    static func identifier(_ name: String) -> String {
        name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

extension Array where Element == UInt8 {
    fileprivate var asString: String { String(decoding: self, as: UTF8.self) }
}
