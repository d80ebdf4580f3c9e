import Foundation
import LivelineCore
import LivelineStore

/// Older app builds still installed: the versions of each attributes type's schema that app builds
/// decode, and the check of every send against each version a targeted device still runs.
///
/// The service's own schema of a type (built in, or from `schemaFiles`) is what it converts and
/// lints content with: what the server sends today. A version registered here is the `ContentState`
/// (and attributes) of some app builds; devices say which one they run at registration
/// (`schemaVersions`). A send that a version still installed on a targeted device cannot decode is
/// refused with 422 `older-build-cannot-decode` naming those devices and builds, or, with
/// `"olderBuilds": "skip"`, sent to the others only. A version no targeted device runs is not
/// checked; a retired version is not checked at all.
extension Service {
    static var schemaVersionRoutes: [Route] {
        [
            Route(method: "PUT", pattern: "/v1/schemas/{attributesType}/versions/{version}", scope: .admin,
                  summary: "Register a version of an attributes type's schema that app builds decode (the schema file format of liveline lint; older versions are kept). Devices name the version they run in PUT /v1/devices (schemaVersions); every send is checked against each version a targeted device runs.",
                  requestSchema: Schema.object([("name", Schema.string), ("attributes", Schema.anyObject), ("contentState", Schema.anyObject)], required: ["contentState"]),
                  success: 201) { s, c in try s.putSchemaVersion(c) },
            Route(method: "GET", pattern: "/v1/schemas", scope: .admin,
                  summary: "Every attributes type the service knows, its registered versions (retired or not) and how many devices run each, by build.", success: 200) { s, c in try s.listSchemas(c) },
            Route(method: "GET", pattern: "/v1/schemas/{attributesType}", scope: .admin,
                  summary: "One attributes type: its versions with their schemas, and how many devices run each, by build.", success: 200) { s, c in try s.getSchema(c) },
            Route(method: "DELETE", pattern: "/v1/schemas/{attributesType}/versions/{version}", scope: .admin,
                  summary: "Retire a version: sends are no longer checked against it. Refused (409) while devices still run it, unless ?force=true.", success: 200) { s, c in try s.retireSchemaVersion(c) },
        ]
    }

    /// Versions apply to every app's pushes of a type, and their device counts span every app:
    /// only an admin key of every app reads or changes them.
    private func requireEveryApp(_ c: RequestContext) throws {
        if let apps = c.key?.apps {
            throw APIError(403, "forbidden", "schema versions apply to every app's pushes and count every app's devices; this key acts on \(apps.joined(separator: ", ")) only (use an admin key of every app)")
        }
    }

    private func knownType(_ c: RequestContext) throws -> String {
        let type = c.param("attributesType")
        try AppBuildReport.checkTypeName(type, field: "attributesType")
        guard schemas[type] != nil else {
            throw APIError(404, "unknown-attributes-type", "attributesType \(type) is not registered; known: \(schemas.keys.sorted().joined(separator: ", ")) (add a schema file with schemaFiles)", field: "attributesType")
        }
        return type
    }

    private static func versionParam(_ c: RequestContext) throws -> String {
        let version = c.param("version")
        guard AppBuildReport.isLabel(version) else {
            throw APIError(400, "invalid-path", "version must be 1 to 64 characters of letters, digits, '.', '-' or '_', got '\(version.prefix(64))'", field: "version")
        }
        return version
    }

    func putSchemaVersion(_ c: RequestContext) throws -> Answer {
        try requireEveryApp(c)
        let type = try knownType(c)
        let version = try Self.versionParam(c)
        let value: JSONValue
        do { value = try JSONValue.parse(c.request.body) } catch { throw APIError(400, "malformed-json", "the body is not valid JSON: \(error)") }
        guard var object = value.objectValue else { throw APIError(400, "malformed-json", "the body must be a schema object (name, attributes, contentState), got \(value.typeName)") }
        if let name = object["name"] {
            guard name.stringValue == type else { throw APIError.invalid("name", "is \(name.jsonString.prefix(200)) but the path names \(type); leave it out or make them the same") }
        }
        object["name"] = .string(type)
        let schema: ActivitySchema
        do { schema = try ActivitySchema(json: .object(object)) } catch { throw APIError(400, "invalid-schema", "\(error)") }
        let text = JSONValue.object(object).jsonString
        return try commit(c) { tx in
            let existing = try tx.schemaVersion(attributesType: type, version: version)
            if let existing, let stored = try? ActivitySchema(json: JSONValue.parse(Array(existing.schema.utf8))), Self.sameSchema(stored, schema) == false {
                throw APIError.conflict("version \(version) of \(type) is already registered with another schema; the builds that shipped it decode that one. Register the new ContentState as a new version")
            }
            try tx.upsertSchemaVersion(SchemaVersionRecord(attributesType: type, version: version, schema: text, createdAt: c.now))
            let stored = try tx.schemaVersion(attributesType: type, version: version)
            let population = try tx.versionPopulations(attributesType: type).first { $0.version == version }
            var o = Self.json(stored ?? SchemaVersionRecord(attributesType: type, version: version, schema: text, createdAt: c.now), population, schema: false)
            if var obj = o.objectValue, existing?.retiredAt != nil { obj["restored"] = true; o = .object(obj) }
            return Answer(existing == nil ? 201 : 200, o)
        }
    }

    func listSchemas(_ c: RequestContext) throws -> Answer {
        try requireEveryApp(c)
        let types = try store.write { tx in try schemas.keys.sorted().map { try typeJSON($0, tx, withSchemas: false) } }
        return Answer(200, ["types": .array(types)])
    }

    func getSchema(_ c: RequestContext) throws -> Answer {
        try requireEveryApp(c)
        let type = try knownType(c)
        return Answer(200, try store.write { tx in try typeJSON(type, tx, withSchemas: true) })
    }

    func retireSchemaVersion(_ c: RequestContext) throws -> Answer {
        try requireEveryApp(c)
        let type = try knownType(c)
        let version = try Self.versionParam(c)
        let force: Bool
        switch c.request.queryValue("force") {
        case nil, "false": force = false
        case "true": force = true
        case let other?: throw APIError.invalid("force", "must be true or false, got '\(other.prefix(20))'")
        }
        return try commit(c) { tx in
            guard let record = try tx.schemaVersion(attributesType: type, version: version) else {
                throw APIError.notFound("version \(version) of \(type) is not registered")
            }
            let population = try tx.versionPopulations(attributesType: type).first { $0.version == version }
            if let population, population.devices > 0, !force, record.retiredAt == nil {
                throw APIError(409, "version-still-installed",
                               "\(population.devices) device\(population.devices == 1 ? "" : "s") still run\(population.devices == 1 ? "s" : "") version \(version) of \(type) (\(Self.describe(population.builds))); once retired, sends are not checked against it and those devices may drop them. Retire it anyway with ?force=true",
                               details: ["devices": .number(Double(population.devices))])
            }
            let changed = try tx.retireSchemaVersion(attributesType: type, version: version, at: c.now)
            var o = Self.json(try tx.schemaVersion(attributesType: type, version: version) ?? record, population, schema: false).objectValue ?? [:]
            o["changed"] = .bool(changed)
            return Answer(200, .object(o))
        }
    }

    private func typeJSON(_ type: String, _ tx: any StoreTransaction, withSchemas: Bool) throws -> JSONValue {
        let versions = try tx.schemaVersions(attributesType: type)
        let populations = try tx.versionPopulations(attributesType: type)
        let registered = Set(versions.map(\.version))
        var o: JSONObject = ["attributesType": .string(type)]
        o["versions"] = .array(versions.map { v in Self.json(v, populations.first { $0.version == v.version }, schema: withSchemas) })
        // Versions devices report that nobody registered: sends to them are checked against the service's schema only.
        let unknown = populations.filter { !registered.contains($0.version) }
        if !unknown.isEmpty { o["unregisteredVersions"] = .array(unknown.map { ["version": .string($0.version), "devices": .number(Double($0.devices))] }) }
        return .object(o)
    }

    static func json(_ v: SchemaVersionRecord, _ population: VersionPopulation?, schema: Bool) -> JSONValue {
        var o: JSONObject = ["attributesType": .string(v.attributesType), "version": .string(v.version), "registeredAt": .string(ISODate.string(v.createdAt)),
                             "retired": .bool(v.retiredAt != nil), "devices": .number(Double(population?.devices ?? 0)),
                             "builds": .array((population?.builds ?? []).map { ["appBuild": $0.build.isEmpty ? .null : .string($0.build), "devices": .number(Double($0.devices))] })]
        if let r = v.retiredAt { o["retiredAt"] = .string(ISODate.string(r)) }
        if schema, let parsed = try? JSONValue.parse(Array(v.schema.utf8)) { o["schema"] = parsed }
        return .object(o)
    }

    static func describe(_ builds: [(build: String, devices: Int)]) -> String {
        builds.prefix(5).map { "\($0.devices) on build \($0.build.isEmpty ? "not reported" : $0.build)" }.joined(separator: ", ")
    }

    /// Same types whatever order a file lists fields in.
    static func sameSchema(_ a: ActivitySchema, _ b: ActivitySchema) -> Bool {
        normalized(a.attributes) == normalized(b.attributes) && normalized(a.contentState) == normalized(b.contentState)
    }

    private static func normalized(_ t: ActivitySchema.FieldType) -> ActivitySchema.FieldType {
        switch t {
        case .optional(let inner): .optional(normalized(inner))
        case .array(let inner): .array(normalized(inner))
        case .dictionary(let inner): .dictionary(normalized(inner))
        case .object(let fields): .object(fields.map { ActivitySchema.Field($0.name, normalized($0.type)) }.sorted { $0.name < $1.name })
        case .enumeration(let cases): .enumeration(cases.sorted())
        default: t
        }
    }
}

/// What a sender wants when a build still installed cannot decode a push: `refuse` (422, nothing
/// queued; the default) or `skip` (sent to the devices that decode it; the others are named).
enum OlderBuildPolicy: String, Sendable {
    case refuse, skip

    /// The request's `olderBuilds`.
    init(_ body: inout JSONBody) throws(APIError) {
        guard let raw = try body.string("olderBuilds", maxLength: 20) else {
            self = .refuse
            return
        }
        guard let policy = OlderBuildPolicy(rawValue: raw) else {
            throw .invalid("olderBuilds", "must be \"refuse\" (the default: nothing is sent when a build still installed cannot decode it) or \"skip\" (sent only where it decodes), got \"\(raw.prefix(20))\"")
        }
        self = policy
    }
}

/// The result of checking one send against the versions installed on its targets.
struct OlderBuildCheck: Sendable {
    /// Devices left out (policy `skip`).
    var skipped: Set<String> = []
    /// For the answer: each version checked, and the devices skipped.
    var summary: JSONValue?

    func skips(_ deviceID: String) -> Bool { !skipped.isEmpty && skipped.contains(deviceID) }

    /// Adds `olderBuilds` to a send's answer when any version was checked.
    func annotate(_ answer: inout JSONObject) {
        if let summary { answer["olderBuilds"] = summary }
    }
}

extension Service {
    /// An update or end: the activity's update-token holders and, when it has a channel, the devices
    /// push-started on it (an iOS 18 device follows the channel without an update token). A device
    /// reached through the channel gets what the channel carries, so it cannot be skipped.
    func checkOlderBuilds(_ tx: any StoreTransaction, activity: ActivityRecord, state: JSONObject?, targets: [(token: TokenRecord, device: DeviceRecord?)],
                          policy: OlderBuildPolicy) throws -> OlderBuildCheck {
        guard state != nil, !activity.attributesType.isEmpty, try tx.hasActiveSchemaVersions(attributesType: activity.attributesType) else { return OlderBuildCheck() }
        let hasChannel = activity.channelID != nil
        var installed = try tx.installedVersions(activityID: activity.activityID, attributesType: activity.attributesType, pushStarted: hasChannel)
        // App-started activities following the channel (Service+ChannelMembers.swift) get what it carries too.
        let members = try Self.currentMembers(activity, tx).map(\.deviceID).filter { id in !installed.contains { $0.deviceID == id } }
        if !members.isEmpty { installed += try tx.installedVersions(deviceIDs: members, attributesType: activity.attributesType) }
        var viaChannel = Set<String>()
        let holders = Set(targets.map(\.token.deviceID))
        if hasChannel {
            for t in targets {
                if let d = t.device, let v = OSVersionNumber(d.iosVersion), v >= OSVersionNumber(18, 0) { viaChannel.insert(d.deviceID) }
            }
            for d in installed where !holders.contains(d.deviceID) { viaChannel.insert(d.deviceID) }
        }
        return try checkOlderBuilds(tx, type: activity.attributesType, state: state, attributes: nil, installed: installed,
                                    targetCount: holders.union(installed.map(\.deviceID)).count, unskippable: viaChannel, keepsChannel: hasChannel, policy: policy)
    }

    /// A push-to-start: the audience's devices; the attributes are checked too.
    func checkOlderBuilds(_ tx: any StoreTransaction, type: String, state: JSONObject?, attributes: JSONObject, deviceIDs: [String], policy: OlderBuildPolicy) throws -> OlderBuildCheck {
        guard try tx.hasActiveSchemaVersions(attributesType: type) else { return OlderBuildCheck() }
        let installed = try tx.installedVersions(deviceIDs: deviceIDs, attributesType: type)
        return try checkOlderBuilds(tx, type: type, state: state, attributes: attributes, installed: installed, targetCount: deviceIDs.count,
                                    unskippable: [], keepsChannel: false, policy: policy)
    }

    private struct VersionVerdict {
        var version: String
        var devices: [InstalledVersion] = []
        var errors: [LintFinding] = []
        var ignored: [String] = []
    }

    private func checkOlderBuilds(_ tx: any StoreTransaction, type: String, state: JSONObject?, attributes: JSONObject?, installed: [InstalledVersion],
                                  targetCount: Int, unskippable: Set<String>, keepsChannel: Bool, policy: OlderBuildPolicy) throws -> OlderBuildCheck {
        guard !installed.isEmpty else { return OlderBuildCheck() }
        let active = try tx.schemaVersions(attributesType: type).filter { $0.retiredAt == nil }
        var verdicts: [String: VersionVerdict] = [:]
        for record in active {
            guard let schema = try? ActivitySchema(json: JSONValue.parse(Array(record.schema.utf8))) else {
                log("schema version \(record.version) of \(type) no longer parses; it is not checked")
                continue
            }
            var verdict = VersionVerdict(version: record.version)
            var findings: [LintFinding] = []
            if let state { findings += schema.checkContentState(.object(state)) }
            if let attributes { findings += schema.checkAttributes(.object(attributes)) }
            verdict.errors = findings.filter(\.isDecodingFailure)
            verdict.ignored = findings.filter { $0.code == .unknownKey || $0.code == .snakeCaseKey || $0.code == .undeclaredProp }.map(\.path)
            verdicts[record.version] = verdict
        }
        for device in installed { verdicts[device.version]?.devices.append(device) }
        let checked = verdicts.values.filter { !$0.devices.isEmpty }.sorted { $0.version < $1.version }
        guard !checked.isEmpty else { return OlderBuildCheck() }
        let failing = checked.filter { !$0.errors.isEmpty }
        let failingDevices = failing.flatMap(\.devices)
        var result = OlderBuildCheck()
        if !failingDevices.isEmpty {
            let stuck = failingDevices.filter { unskippable.contains($0.deviceID) }
            let everyone = failingDevices.count >= targetCount && !keepsChannel
            if policy == .refuse || !stuck.isEmpty || everyone {
                throw refusal(type: type, failing: failing, devices: failingDevices, stuck: stuck, everyone: everyone, policy: policy)
            }
            result.skipped = Set(failingDevices.map(\.deviceID))
        }
        var summary: JSONObject = ["attributesType": .string(type)]
        summary["checked"] = .array(checked.map { v in
            var o: JSONObject = ["version": .string(v.version), "devices": .number(Double(v.devices.count)), "decodes": .bool(v.errors.isEmpty)]
            if !v.ignored.isEmpty { o["ignores"] = .array(v.ignored.map(JSONValue.string)) }
            return .object(o)
        })
        if !failingDevices.isEmpty {
            summary["skipped"] = .number(Double(failingDevices.count))
            summary["skippedDevices"] = .array(failingDevices.prefix(100).map(Self.json))
        }
        result.summary = .object(summary)
        return result
    }

    private static func json(_ d: InstalledVersion) -> JSONValue {
        ["deviceID": .string(d.deviceID), "appBuild": d.appBuild.map(JSONValue.string) ?? .null, "schemaVersion": .string(d.version)]
    }

    private func refusal(type: String, failing: [VersionVerdict], devices: [InstalledVersion], stuck: [InstalledVersion], everyone: Bool, policy: OlderBuildPolicy) -> APIError {
        let n = devices.count
        let builds = Dictionary(grouping: devices, by: { $0.appBuild ?? "" }).map { (build: $0.key, devices: $0.value.count) }
            .sorted { $0.devices != $1.devices ? $0.devices > $1.devices : $0.build < $1.build }
        let first = failing[0]
        let named = devices.prefix(5).map { "\($0.deviceID) (build \($0.appBuild ?? "not reported"))" }.joined(separator: ", ")
        var message = "\(n) targeted device\(n == 1 ? "" : "s") run\(n == 1 ? "s" : "") a build whose \(type) schema version \(failing.map(\.version).joined(separator: ", ")) cannot decode this push and would drop it: \(named)\(n > 5 ? ", …" : "") (\(Self.describe(builds))); version \(first.version): \(first.errors[0].path): \(first.errors[0].message). "
        if !stuck.isEmpty {
            message += "\(stuck.count) of them receive this activity through its channel, so they cannot be left out; nothing was sent"
        } else if everyone && policy == .skip {
            message += "That is every targeted device; nothing was sent"
        } else {
            message += "Nothing was sent: send it only where it decodes with \"olderBuilds\": \"skip\", or send content those builds decode"
        }
        var findings: [LintFinding] = []
        for v in failing { for e in v.errors.prefix(5) { findings.append(LintFinding(.error, e.code, path: e.path, "schema version \(v.version): \(e.message)")) } }
        return APIError(422, "older-build-cannot-decode", message, field: first.errors[0].path.hasPrefix("aps.attributes") ? "attributes" : "contentState", findings: findings, details: [
            "attributesType": .string(type), "count": .number(Double(n)),
            "devices": .array(devices.prefix(100).map(Self.json)),
            "builds": .array(builds.prefix(20).map { ["appBuild": $0.build.isEmpty ? .null : .string($0.build), "devices": .number(Double($0.devices))] }),
            "versions": .array(failing.map { ["version": .string($0.version), "devices": .number(Double($0.devices.count))] }),
        ])
    }
}
