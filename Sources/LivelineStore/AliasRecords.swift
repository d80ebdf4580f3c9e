import Foundation
import LivelineSQL

/// Another name of an activity within one app (migration `12-activity-aliases`): a Voltra `name`
/// given at start (`deviceID` nil: the backend's, for every installation of the app) or one
/// installation's own ActivityKit activity id (`deviceID` is that installation, the only one it resolves for).
public struct ActivityAliasRecord: Sendable, Hashable {
    public var bundleID: String
    public var alias: String
    public var activityID: String
    public var deviceID: String?
    public var createdAt: Date
    public init(bundleID: String, alias: String, activityID: String, deviceID: String?, createdAt: Date) {
        self.bundleID = bundleID
        self.alias = alias
        self.activityID = activityID
        self.deviceID = deviceID
        self.createdAt = createdAt
    }
}

extension RecordDecoding {
    func activityAliasRecord(_ row: SQLRow) -> ActivityAliasRecord {
        ActivityAliasRecord(bundleID: row.string("bundle_id") ?? "", alias: row.string("alias") ?? "", activityID: row.string("activity_id") ?? "",
                            deviceID: row.string("device_id"), createdAt: date(row, "created_at"))
    }
}
