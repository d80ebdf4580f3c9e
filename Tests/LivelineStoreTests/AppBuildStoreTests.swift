import Foundation
import LivelineStore
import LivelineTesting
import Testing

/// Migration 10-app-builds on every store: what devices report of their app, and schema versions.
@Suite("Store: app builds and schema versions, on SQLite and PostgreSQL")
struct AppBuildStoreTests {
    static let t0 = StoreContract.t0

    static func builds(_ store: any Store) throws {
        try StoreContract.seed(store)  // d1 and d2 hold tokens of a1
        try store.write { (tx: any StoreTransaction) throws -> Void in
            try tx.upsertDevice(DeviceRecord(deviceID: "d3", bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: t0))
            try tx.setDeviceBuild(DeviceBuildRecord(deviceID: "d1", appBuild: "41", appVersion: "1.3", schemaVersions: ["FlightAttributes": "1", "Other": "7"], updatedAt: t0))
            try tx.setDeviceBuild(DeviceBuildRecord(deviceID: "d2", appBuild: "52", appVersion: "1.4", schemaVersions: ["FlightAttributes": "2"], updatedAt: t0))
            try tx.setDeviceBuild(DeviceBuildRecord(deviceID: "d3", appBuild: "41", appVersion: nil, schemaVersions: ["FlightAttributes": "1"], updatedAt: t0))
        }
        try store.write { (tx: any StoreTransaction) throws -> Void in
            #expect(try tx.deviceBuild(deviceID: "d1") == DeviceBuildRecord(deviceID: "d1", appBuild: "41", appVersion: "1.3", schemaVersions: ["FlightAttributes": "1", "Other": "7"], updatedAt: t0))
            #expect(try tx.installedVersions(activityID: "a1", attributesType: "FlightAttributes", pushStarted: false) == [
                InstalledVersion(deviceID: "d1", version: "1", appBuild: "41"), InstalledVersion(deviceID: "d2", version: "2", appBuild: "52")])
            #expect(try tx.installedVersions(activityID: "a1", attributesType: "Other", pushStarted: false) == [InstalledVersion(deviceID: "d1", version: "7", appBuild: "41")])
            // d3 holds no token of a1 but was push-started on it (it may follow a1's channel).
            _ = try tx.insertSend(SendRecord(activityID: "a1", event: "start", bundleID: "com.example.flights", body: Array("{}".utf8), createdAt: t0),
                                  deliveries: [NewDelivery(deviceID: "d3", target: .pushToStart, token: "pts-d3", priority: 10, notBefore: t0),
                                               NewDelivery(deviceID: "d1", target: .pushToStart, token: "pts-d1", priority: 10, notBefore: t0)], now: t0)
            #expect(try tx.installedVersions(activityID: "a1", attributesType: "FlightAttributes", pushStarted: true).map(\.deviceID) == ["d1", "d2", "d3"])
            #expect(try tx.installedVersions(activityID: "a1", attributesType: "FlightAttributes", pushStarted: false).map(\.deviceID) == ["d1", "d2"])
            #expect(try tx.installedVersions(deviceIDs: ["d3", "d2", "nobody"], attributesType: "FlightAttributes").map(\.deviceID) == ["d2", "d3"])
            let populations = try tx.versionPopulations(attributesType: "FlightAttributes")
            #expect(populations.map(\.version) == ["1", "2"] && populations.map(\.devices) == [2, 1])
            #expect(populations.first?.builds.map(\.build) == ["41"] && populations.first?.builds.map(\.devices) == [2])
        }
        // A new registration replaces: d1 upgraded and reports FlightAttributes only; an empty report leaves nothing.
        try store.write { (tx: any StoreTransaction) throws -> Void in
            try tx.setDeviceBuild(DeviceBuildRecord(deviceID: "d1", appBuild: "52", appVersion: "1.4", schemaVersions: ["FlightAttributes": "2"], updatedAt: t0))
            try tx.setDeviceBuild(DeviceBuildRecord(deviceID: "d3", appBuild: nil, appVersion: nil, schemaVersions: [:], updatedAt: t0))
        }
        try store.write { (tx: any StoreTransaction) throws -> Void in
            #expect(try tx.installedVersions(activityID: "a1", attributesType: "Other", pushStarted: false) == [])
            #expect(try tx.deviceBuild(deviceID: "d3") == nil)
            #expect(try tx.versionPopulations(attributesType: "FlightAttributes").map(\.devices) == [2])
            // Deleting a device deletes what it reported.
            #expect(try tx.deleteDevice("d1"))
            #expect(try tx.deviceBuild(deviceID: "d1") == nil)
            #expect(try tx.versionPopulations(attributesType: "FlightAttributes").map(\.devices) == [1])
        }
    }

    static func versions(_ store: any Store) throws {
        try store.write { (tx: any StoreTransaction) throws -> Void in
            #expect(try !tx.hasActiveSchemaVersions(attributesType: "FlightAttributes"))
            try tx.upsertSchemaVersion(SchemaVersionRecord(attributesType: "FlightAttributes", version: "1", schema: #"{"contentState":{}}"#, createdAt: t0))
            try tx.upsertSchemaVersion(SchemaVersionRecord(attributesType: "FlightAttributes", version: "2", schema: #"{"contentState":{"a":"int"}}"#, createdAt: t0 + 10))
            try tx.upsertSchemaVersion(SchemaVersionRecord(attributesType: "Other", version: "1", schema: "{}", createdAt: t0))
        }
        try store.write { (tx: any StoreTransaction) throws -> Void in
            #expect(try tx.hasActiveSchemaVersions(attributesType: "FlightAttributes"))
            #expect(try tx.schemaVersions(attributesType: "FlightAttributes").map(\.version) == ["1", "2"])
            #expect(try tx.schemaVersions(attributesType: nil).map { "\($0.attributesType)/\($0.version)" } == ["FlightAttributes/1", "FlightAttributes/2", "Other/1"])
            #expect(try tx.retireSchemaVersion(attributesType: "FlightAttributes", version: "1", at: t0 + 20))
            #expect(try !tx.retireSchemaVersion(attributesType: "FlightAttributes", version: "1", at: t0 + 30), "already retired")
            #expect(try !tx.retireSchemaVersion(attributesType: "FlightAttributes", version: "9", at: t0 + 30), "unknown")
            #expect(try tx.schemaVersion(attributesType: "FlightAttributes", version: "1")?.retiredAt == t0 + 20)
            #expect(try tx.retireSchemaVersion(attributesType: "FlightAttributes", version: "2", at: t0 + 20))
            #expect(try !tx.hasActiveSchemaVersions(attributesType: "FlightAttributes"))
            // Stored again: restored, created when it first was.
            try tx.upsertSchemaVersion(SchemaVersionRecord(attributesType: "FlightAttributes", version: "2", schema: #"{"contentState":{"a":"int"}}"#, createdAt: t0 + 40))
            let again = try tx.schemaVersion(attributesType: "FlightAttributes", version: "2")
            #expect(again?.retiredAt == nil && again?.createdAt == t0 + 10 && again?.schema == #"{"contentState":{"a":"int"}}"#)
            #expect(try tx.hasActiveSchemaVersions(attributesType: "FlightAttributes"))
        }
    }

    /// An audience larger than one statement's slice of ids (500 on SQLite, 1,000 on PostgreSQL):
    /// every slice is read, none twice, each device with its own version.
    static func largeAudience(_ store: any Store) throws {
        let ids = (0...1200).map { String(format: "d%04d", $0) }
        try store.write { (tx: any StoreTransaction) throws -> Void in
            for (i, id) in ids.enumerated() where i % 3 != 0 {
                try tx.upsertDevice(DeviceRecord(deviceID: id, bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: t0))
                try tx.setDeviceBuild(DeviceBuildRecord(deviceID: id, appBuild: "\(i)", appVersion: nil, schemaVersions: ["FlightAttributes": "\(i % 2)"], updatedAt: t0))
            }
        }
        let found = try store.write { try $0.installedVersions(deviceIDs: ids + ["nobody"], attributesType: "FlightAttributes") }
        let expected = ids.enumerated().filter { $0.offset % 3 != 0 }.map { InstalledVersion(deviceID: $0.element, version: "\($0.offset % 2)", appBuild: "\($0.offset)") }
        #expect(found.count == 800)
        #expect(found == expected)
    }

    @Test("the versions of an audience of 1,201 devices are read across slices, each once", arguments: StoreKind.all)
    func largeAudience(_ kind: StoreKind) throws { try kind.withStore(Self.largeAudience) }

    @Test("devices' builds and versions: stored, replaced, read per activity and audience, counted, deleted with the device", arguments: StoreKind.all)
    func deviceBuilds(_ kind: StoreKind) throws { try kind.withStore(Self.builds) }

    @Test("schema versions: stored, listed in order, retired once, restored by storing again", arguments: StoreKind.all)
    func schemaVersions(_ kind: StoreKind) throws { try kind.withStore(Self.versions) }
}
