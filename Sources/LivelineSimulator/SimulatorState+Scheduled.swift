import Foundation
import LivelineCore

/// Scheduled Live Activities (iOS 26, `Activity.request(..., start:)`): the activity exists at once
/// in the `pending` state, is not shown and has no update token; at its start date (on the
/// simulator's clock) it becomes active, and only then is its update token issued.
extension SimulatorState {
    mutating func createScheduled(
        id: String, deviceID: String, bundleID: String, type: String, attributes: JSONValue, state: JSONValue, startedBy: String,
        staleDate: Date?, relevance: Double?, issueToken: Bool, channel: String?, start: Date, now: Date
    ) -> String {
        let snapshot = ActivitySnapshot(
            id: id, deviceID: deviceID, bundleID: bundleID, attributesType: type, attributes: attributes, contentState: state,
            state: .pending, pushToken: nil, channelID: channel, startedAt: start, startedBy: startedBy, staleDate: staleDate,
            relevanceScore: relevance, endedAt: nil, dismissalDate: nil, lastTimestamp: 0, updateCount: 0,
            droppedCount: 0, lastAlert: nil)
        activities[id] = ActivityRecord(snapshot: snapshot, issuesTokenAtStart: issueToken)
        emit(now, deviceID, bundleID, .activityState(activityID: id, state: .pending))
        return id
    }

    /// The start date has come: active from that moment, with its update token (unless the device
    /// withholds update tokens), both events stamped with the start date.
    mutating func startScheduled(_ record: inout ActivityRecord) {
        var s = record.snapshot
        s.state = .active
        let at = s.startedAt
        emit(at, s.deviceID, s.bundleID, .activityState(activityID: s.id, state: .active))
        if record.issuesTokenAtStart, let device = devices[s.deviceID], !device.modes.withholdsUpdateTokens {
            let t = newToken(hexBytes: 80)
            tokens[t] = TokenRecord(deviceID: s.deviceID, bundleID: s.bundleID, kind: .activityUpdate(activityID: s.id), environment: device.environment)
            s.pushToken = t
            emit(at, s.deviceID, s.bundleID, .activityPushToken(activityID: s.id, token: t, rotated: false))
        }
        record.issuesTokenAtStart = false
        record.snapshot = s
    }
}
