import Foundation
import LivelineSQL

/// What a device reported of its app at registration (migration `10-app-builds`): the build
/// (`CFBundleVersion`), the version people see (`CFBundleShortVersionString`), and per attributes
/// type the version of the schema its `ContentState` decodes.
public struct DeviceBuildRecord: Sendable, Hashable {
    public var deviceID: String
    public var appBuild: String?
    public var appVersion: String?
    /// Attributes type to schema version.
    public var schemaVersions: [String: String]
    public var updatedAt: Date
    public init(deviceID: String, appBuild: String?, appVersion: String?, schemaVersions: [String: String], updatedAt: Date) {
        self.deviceID = deviceID
        self.appBuild = appBuild
        self.appVersion = appVersion
        self.schemaVersions = schemaVersions
        self.updatedAt = updatedAt
    }
    /// Nothing reported: the store keeps no row for it.
    public var isEmpty: Bool { appBuild == nil && appVersion == nil && schemaVersions.isEmpty }
}

/// One version of an attributes type's schema that app builds decode. The store keeps its JSON
/// as given; the service reads it. A retired version is kept (and listed) but no longer checked.
public struct SchemaVersionRecord: Sendable, Hashable {
    public var attributesType: String
    public var version: String
    /// The schema file's JSON (`name`, `attributes`, `contentState`).
    public var schema: String
    public var createdAt: Date
    public var retiredAt: Date?
    public init(attributesType: String, version: String, schema: String, createdAt: Date, retiredAt: Date? = nil) {
        self.attributesType = attributesType
        self.version = version
        self.schema = schema
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// A device that reported a schema version for a type, with its build.
public struct InstalledVersion: Sendable, Hashable {
    public var deviceID: String
    public var version: String
    public var appBuild: String?
    public init(deviceID: String, version: String, appBuild: String?) {
        self.deviceID = deviceID
        self.version = version
        self.appBuild = appBuild
    }
}

/// How many devices report a version of a type, and their builds (most common first, at most 20).
public struct VersionPopulation: Sendable, Hashable {
    public var version: String
    public var devices: Int
    public var builds: [(build: String, devices: Int)]
    public init(version: String, devices: Int, builds: [(build: String, devices: Int)]) {
        self.version = version
        self.devices = devices
        self.builds = builds
    }
    public static func == (a: Self, b: Self) -> Bool {
        a.version == b.version && a.devices == b.devices && a.builds.map(\.build) == b.builds.map(\.build) && a.builds.map(\.devices) == b.builds.map(\.devices)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(devices)
    }
}

extension RecordDecoding {
    /// A `device_builds` row and the device's `device_schema_versions` rows.
    func deviceBuildRecord(_ row: SQLRow, versions: [SQLRow]) -> DeviceBuildRecord {
        var map: [String: String] = [:]
        for v in versions { map[v.string("attributes_type") ?? ""] = v.string("version") ?? "" }
        return DeviceBuildRecord(deviceID: row.string("device_id") ?? "", appBuild: row.string("app_build"), appVersion: row.string("app_version"),
                                 schemaVersions: map, updatedAt: date(row, "updated_at"))
    }

    func schemaVersionRecord(_ row: SQLRow) -> SchemaVersionRecord {
        SchemaVersionRecord(attributesType: row.string("attributes_type") ?? "", version: row.string("version") ?? "", schema: row.string("schema_json") ?? "",
                            createdAt: date(row, "created_at"), retiredAt: row.double("retired_at").map(Date.init(timeIntervalSince1970:)))
    }

    func installedVersion(_ row: SQLRow) -> InstalledVersion {
        InstalledVersion(deviceID: row.string("device_id") ?? "", version: row.string("version") ?? "", appBuild: row.string("app_build"))
    }

    /// Rows of `version, app_build, n` (one per version and build) as populations, biggest first.
    func populations(_ rows: [SQLRow]) -> [VersionPopulation] {
        var byVersion: [String: [(build: String, devices: Int)]] = [:]
        for row in rows {
            byVersion[row.string("version") ?? "", default: []].append((row.string("app_build") ?? "", row.int("n") ?? 0))
        }
        return byVersion.map { version, builds in
            let sorted = builds.sorted { $0.devices != $1.devices ? $0.devices > $1.devices : $0.build < $1.build }
            return VersionPopulation(version: version, devices: builds.reduce(0) { $0 + $1.devices }, builds: Array(sorted.prefix(20)))
        }.sorted { $0.version < $1.version }
    }
}
