import Foundation
import LivelineCore
import LivelineStore

/// Exactly one activity per logical id per device (issue #25). iOS makes a second Live Activity
/// for every push-to-start it receives, even with the same attributes: a start repeated by a
/// retry, an offline queue or a second backend call would show the flight twice. The service
/// judges each device of a start's audience by its status for the activity (the states of
/// `GET /v1/activities/{id}`, Service+ActivityStatus.swift) before it queues a push-to-start:
///
/// - no start yet, or the last one APNs refused (`failed`): started;
/// - `pending`, `started`, `active`, `stale`: skipped, code `already-started` (never sent twice);
/// - the activity is over (the backend's end is due, or ActivityKit's 8 hours passed; on the
///   device `ended` or `dismissed`): the whole start is refused with 409 `already-ended` unless it
///   says `"restart": true`, which begins a new run of the logical activity for its audience.
///
/// `"restart": true` on a running activity also starts again a device whose status is `started`
/// with the reason `start-never-shown` (APNs accepted the push-to-start and the device never
/// confirmed it: the force-quit app of Apple's known bug). It never starts a device whose activity
/// is confirmed (`active`, `stale`) or still waits on APNs (`pending`).
struct StartOnce {
    /// A device of the audience already holds the activity (skipped, or the 409's code when every one does).
    static let alreadyStarted = "already-started"
    /// The activity is over on its devices: starting it again needs `"restart": true`.
    static let alreadyEnded = "already-ended"
    /// Newest rows of a device read to judge its state (a start older than these counts as shown).
    static let rowsPerDevice = 50

    /// The activity's record for this run; nil when the start begins a new run.
    private(set) var running: ActivityRecord?
    let restart: Bool
    let rules: Service.StatusRules
    let now: Date
    /// Devices skipped because they already hold the activity.
    private(set) var held = 0
    /// Send bodies read for stale dates, by send id: a fan-out's devices share one start.
    private var bodies: [Int64: JSONValue?] = [:]

    /// The activity's record, read under its lock: two starts at once (two instances on PostgreSQL)
    /// judge the devices one after the other, so the second sees the first's push-to-starts.
    static func lockedActivity(_ activityID: String, _ tx: any StoreTransaction) throws -> ActivityRecord? {
        try tx.lockActivity(activityID)
        return try tx.activity(activityID)
    }

    /// Judges the activity as a whole: an activity that is over is restarted only when the send asks.
    init(_ existing: ActivityRecord?, activityID: String, restart: Bool, rules: Service.StatusRules, now: Date, _ tx: any StoreTransaction) throws {
        self.restart = restart
        self.rules = rules
        self.now = now
        guard let existing else { return }
        let eightHours = existing.startedAt.addingTimeInterval(Service.activityLifetime)
        let endedAt = [existing.endedAt, eightHours].compactMap { $0 }.filter { $0 <= now }.min()
        guard let endedAt else {
            running = existing
            return
        }
        guard restart else {
            let by = existing.endedAt.map { $0 <= now } == true ? "the backend ended it" : "ActivityKit's 8-hour limit ended it"
            throw APIError(409, Self.alreadyEnded,
                           "activity \(activityID) is over (\(by) at \(ISODate.string(endedAt))): its devices show it ended or have dismissed it, and a start would bring it back; send \"restart\": true to start a new run of it",
                           field: "restart", details: ["endedAt": .string(ISODate.string(endedAt))])
        }
        // A new run: the old run's update tokens belong to ended activities.
        _ = try tx.deleteActivityTokens(activityID: activityID)
    }

    /// The `skipped` entry of a device that already holds the activity, or nil when it may be started.
    mutating func skip(_ device: DeviceRecord, _ tx: any StoreTransaction) throws -> JSONValue? {
        guard let activity = running else { return nil }
        // Rows of an earlier run (before a restart) say nothing about this one.
        let rows = try tx.deliveries(activityID: activity.activityID, deviceID: device.deviceID, limit: Self.rowsPerDevice)
            .filter { $0.updatedAt >= activity.startedAt }
        let token = try tx.activityToken(activityID: activity.activityID, deviceID: device.deviceID)
        if rows.isEmpty && token == nil { return nil }
        let facts = DeviceFacts(activity: activity, deviceID: device.deviceID, device: device, deliveries: rows, token: token, decodeFailure: nil)
        var cache = bodies
        let status = try facts.status(rules: rules, now: now) { id in
            if let known = cache[id] { return known }
            let json = try tx.send(id).flatMap { try? JSONValue.parse($0.body) }
            cache[id] = json
            return json
        }
        bodies = cache
        let state = status["state"]?.stringValue ?? "unknown"
        if state == "failed" { return nil }  // APNs refused the push-to-start: nothing was created
        let neverShown = status["reason"]?["code"]?.stringValue == StatusReason.startNeverShown.rawValue
        if restart && state == "started" && neverShown { return nil }
        held += 1
        let why = neverShown
            ? "the device was sent activity \(activity.activityID) and never confirmed it (start-never-shown); send \"restart\": true to send it again"
            : "the device already holds activity \(activity.activityID) (\(state)): a second push-to-start would make a second Live Activity on it"
        return ["deviceID": .string(device.deviceID), "code": .string(Self.alreadyStarted), "state": .string(state), "reason": .string(why)]
    }

    /// With no device left to start: 409 when the devices that could be started all hold it already.
    func refuseIfAllHeld(_ activityID: String, skipped: [JSONValue]) throws {
        guard held > 0 else { return }
        throw APIError(409, Self.alreadyStarted,
                       "activity \(activityID) was already started on every device of the audience that can be started (\(held) device\(held == 1 ? "" : "s")); nothing was sent: send updates to it",
                       details: ["skipped": .array(skipped)])
    }

    /// The activity's record after the start: a running activity keeps its start time (ActivityKit's
    /// 8 hours count from the first run's start, so the service never sends past the earliest end) and
    /// its newest timestamp; a new run takes `fresh` as is.
    func record(_ fresh: ActivityRecord) throws -> ActivityRecord {
        guard let old = running else { return fresh }
        if !old.attributesType.isEmpty && old.attributesType != fresh.attributesType {
            throw APIError(409, "conflict", "activity \(old.activityID) is a \(old.attributesType); this start names \(fresh.attributesType)", field: "attributesType")
        }
        var kept = fresh
        kept.startedAt = old.startedAt
        kept.endedAt = old.endedAt
        kept.channelID = fresh.channelID ?? old.channelID
        kept.lastTimestamp = max(old.lastTimestamp ?? now, fresh.lastTimestamp ?? now)
        return kept
    }
}
