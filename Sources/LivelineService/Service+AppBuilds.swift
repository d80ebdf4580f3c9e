import Foundation
import LivelineCore
import LivelineStore

/// What a device reports of its app at `PUT /v1/devices/{deviceID}`: `appBuild`
/// (`CFBundleVersion`), `appVersion` (`CFBundleShortVersionString`) and `schemaVersions` (per
/// attributes type, the version of the schema its `ContentState` decodes). PUT replaces: a field
/// left out is no longer recorded.
struct AppBuildReport: Sendable {
    var appBuild: String?
    var appVersion: String?
    var schemaVersions: [String: String] = [:]

    /// At most this many types in `schemaVersions`.
    static let maxTypes = 50

    /// Reads the three fields from a device registration; each bad value is a 400 naming it.
    init(_ body: inout JSONBody) throws(APIError) {
        appBuild = try Self.label(body.value("appBuild"), field: "appBuild", example: "\"52\" or \"1.4.52\" (CFBundleVersion)")
        appVersion = try Self.label(body.value("appVersion"), field: "appVersion", example: "\"1.4\" (CFBundleShortVersionString)")
        guard let raw = body.value("schemaVersions") else { return }
        guard let object = raw.objectValue else {
            throw .invalid("schemaVersions", "expected an object of attributes type to schema version, like {\"FlightAttributes\": \"3\"}, got \(raw.typeName)")
        }
        if object.count > Self.maxTypes { throw .invalid("schemaVersions", "names \(object.count) types; the limit is \(Self.maxTypes)") }
        for member in object {
            try Self.checkTypeName(member.key, field: "schemaVersions")
            guard let version = try Self.label(member.value, field: "schemaVersions.\(member.key)", example: "\"3\"") else {
                throw .invalid("schemaVersions.\(member.key)", "must be a version string like \"3\", not null")
            }
            schemaVersions[member.key] = version
        }
    }

    /// A build, version or schema version: 1 to 64 characters of letters, digits, `.`, `-`, `_`.
    static func isLabel(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }

    private static func label(_ value: JSONValue?, field: String, example: String) throws(APIError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { throw .invalid(field, "expected a string like \(example), got \(value.typeName)") }
        guard isLabel(text) else {
            throw .invalid(field, "must be 1 to 64 characters of letters, digits, '.', '-' or '_', like \(example); got \"\(text.prefix(64))\"\(text.utf8.count > 64 ? " (\(text.utf8.count) bytes)" : "")")
        }
        return text
    }

    /// An attributes type as Swift names it: 1 to 200 letters, digits, `_` or `.`, not starting with a digit.
    static func checkTypeName(_ name: String, field: String) throws(APIError) {
        let ok = (1...200).contains(name.utf8.count) && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F
        } && !(name.utf8.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? true)
        if !ok { throw .invalid(field, "\"\(name.prefix(60))\" is not an attributes type name (1 to 200 letters, digits, '_' or '.', the Swift type's name)") }
    }

    func record(deviceID: String, now: Date) -> DeviceBuildRecord {
        DeviceBuildRecord(deviceID: deviceID, appBuild: appBuild, appVersion: appVersion, schemaVersions: schemaVersions, updatedAt: now)
    }

    /// Records the report for the device (inside the registration's transaction).
    func save(deviceID: String, _ tx: any StoreTransaction, now: Date) throws {
        try tx.setDeviceBuild(record(deviceID: deviceID, now: now))
    }

    /// A device's JSON with what it reported of its app.
    static func annotate(_ device: JSONValue, _ build: DeviceBuildRecord?) -> JSONValue {
        guard var o = device.objectValue, let build else { return device }
        if let b = build.appBuild { o["appBuild"] = .string(b) }
        if let v = build.appVersion { o["appVersion"] = .string(v) }
        if !build.schemaVersions.isEmpty {
            var versions = JSONObject()
            for (type, version) in build.schemaVersions.sorted(by: { $0.key < $1.key }) { versions[type] = .string(version) }
            o["schemaVersions"] = .object(versions)
        }
        return .object(o)
    }

    func annotate(_ device: JSONValue, deviceID: String, now: Date) -> JSONValue {
        Self.annotate(device, record(deviceID: deviceID, now: now))
    }
}

extension Service {
    /// A device's JSON with its app build, read in its own transaction (`GET /v1/devices/{id}`).
    func deviceJSON(_ device: DeviceRecord) throws -> JSONValue {
        AppBuildReport.annotate(Self.json(device), try store.write { try $0.deviceBuild(deviceID: device.deviceID) })
    }
}
