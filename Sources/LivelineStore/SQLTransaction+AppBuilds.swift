import Foundation
import LivelineSQL

/// App builds and schema versions (migration `10-app-builds`).
extension SQLTransaction {
    func setDeviceBuild(_ build: DeviceBuildRecord) throws {
        try db.run("DELETE FROM device_schema_versions WHERE device_id = $1", [.text(build.deviceID)])
        guard !build.isEmpty else {
            try db.run("DELETE FROM device_builds WHERE device_id = $1", [.text(build.deviceID)])
            return
        }
        try db.run("""
            INSERT INTO device_builds (device_id, app_build, app_version, updated_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (device_id) DO UPDATE SET app_build = excluded.app_build, app_version = excluded.app_version, updated_at = excluded.updated_at
            """, [.text(build.deviceID), .from(build.appBuild), .from(build.appVersion), time(build.updatedAt)])
        for (type, version) in build.schemaVersions.sorted(by: { $0.key < $1.key }) {
            try db.run("INSERT INTO device_schema_versions (device_id, attributes_type, version) VALUES ($1, $2, $3)",
                       [.text(build.deviceID), .text(type), .text(version)])
        }
    }

    func deviceBuild(deviceID: String) throws -> DeviceBuildRecord? {
        guard let row = try db.queryOne("SELECT * FROM device_builds WHERE device_id = $1", [.text(deviceID)]) else { return nil }
        return deviceBuildRecord(row, versions: try db.query("SELECT * FROM device_schema_versions WHERE device_id = $1", [.text(deviceID)]))
    }

    func installedVersions(activityID: String, attributesType: String, pushStarted: Bool) throws -> [InstalledVersion] {
        let holders = pushStarted
            ? "SELECT device_id FROM activity_tokens WHERE activity_id = $2 UNION SELECT device_id FROM outbox WHERE activity_id = $2 AND target = 'push-to-start' AND device_id IS NOT NULL"
            : "SELECT device_id FROM activity_tokens WHERE activity_id = $2"
        return try db.query("""
            SELECT t.device_id, v.version, b.app_build FROM (\(holders)) t
            JOIN device_schema_versions v ON v.device_id = t.device_id AND v.attributes_type = $1
            LEFT JOIN device_builds b ON b.device_id = t.device_id
            ORDER BY t.device_id
            """, [.text(attributesType), .text(activityID)]).map(installedVersion)
    }

    /// In slices: on SQLite an `IN` list of 500 parameters (it binds at most 32,766 a statement);
    /// on PostgreSQL one array parameter of 1,000 ids.
    func installedVersions(deviceIDs: [String], attributesType: String) throws -> [InstalledVersion] {
        var result: [InstalledVersion] = []
        let sliceSize = dialect == .sqlite ? 500 : 1000
        var start = 0
        while start < deviceIDs.count {
            let slice = deviceIDs[start..<min(start + sliceSize, deviceIDs.count)]
            start += slice.count
            let (condition, ids): (String, [SQLValue]) = switch dialect {
            case .sqlite: ("IN (\(Self.placeholders(from: 2, count: slice.count)))", slice.map { .text($0) })
            case .postgres: ("= ANY($2::text[])", [.textArray(Array(slice))])
            }
            result += try db.query("""
                SELECT v.device_id, v.version, b.app_build FROM device_schema_versions v
                LEFT JOIN device_builds b ON b.device_id = v.device_id
                WHERE v.attributes_type = $1 AND v.device_id \(condition) ORDER BY v.device_id
                """, [.text(attributesType)] + ids).map(installedVersion)
        }
        return result
    }

    func versionPopulations(attributesType: String) throws -> [VersionPopulation] {
        populations(try db.query("""
            SELECT v.version, b.app_build, count(*) AS n FROM device_schema_versions v
            LEFT JOIN device_builds b ON b.device_id = v.device_id
            WHERE v.attributes_type = $1 GROUP BY v.version, b.app_build
            """, [.text(attributesType)]))
    }

    func upsertSchemaVersion(_ version: SchemaVersionRecord) throws {
        try db.run("""
            INSERT INTO schema_versions (attributes_type, version, schema_json, created_at, retired_at) VALUES ($1, $2, $3, $4, NULL)
            ON CONFLICT (attributes_type, version) DO UPDATE SET schema_json = excluded.schema_json, retired_at = NULL
            """, [.text(version.attributesType), .text(version.version), .text(version.schema), time(version.createdAt)])
    }

    func schemaVersion(attributesType: String, version: String) throws -> SchemaVersionRecord? {
        try db.queryOne("SELECT * FROM schema_versions WHERE attributes_type = $1 AND version = $2", [.text(attributesType), .text(version)]).map(schemaVersionRecord)
    }

    func schemaVersions(attributesType: String?) throws -> [SchemaVersionRecord] {
        if let attributesType {
            return try db.query("SELECT * FROM schema_versions WHERE attributes_type = $1 ORDER BY created_at, version", [.text(attributesType)]).map(schemaVersionRecord)
        }
        return try db.query("SELECT * FROM schema_versions ORDER BY attributes_type, created_at, version", []).map(schemaVersionRecord)
    }

    func hasActiveSchemaVersions(attributesType: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS one FROM schema_versions WHERE attributes_type = $1 AND retired_at IS NULL LIMIT 1", [.text(attributesType)]) != nil
    }

    func retireSchemaVersion(attributesType: String, version: String, at: Date) throws -> Bool {
        try db.run("UPDATE schema_versions SET retired_at = $1 WHERE attributes_type = $2 AND version = $3 AND retired_at IS NULL",
                   [time(at), .text(attributesType), .text(version)]) > 0
    }
}
