import Foundation
import LivelineCore

/// The app's own calls on an activity: `Activity.end(_:dismissalPolicy:)`.
extension Simulator {
    /// How an ended activity leaves the Lock Screen.
    public enum DismissalPolicy: String, Sendable, Hashable, CaseIterable {
        /// After the system's delay (up to 4 hours).
        case `default`
        /// At once.
        case immediate
    }

    /// The app ends the activity (ActivityKit's `end`): it stays on the Lock Screen until its dismissal.
    /// - Throws: `SimulatorError` (`.unknownActivity`) for an unknown, ended or dismissed activity.
    public func endActivity(_ activityID: String, dismissal: DismissalPolicy = .default) throws(SimulatorError) {
        let now = clock.now
        try state.withLock { s throws(SimulatorError) in
            s.tick(now)
            guard var a = s.activities[activityID]?.snapshot else { throw SimulatorError(.unknownActivity, "no activity \"\(activityID)\"") }
            guard a.state == .active || a.state == .stale else {
                throw SimulatorError(.unsupported, "activity \"\(activityID)\" is \(a.state.rawValue) already")
            }
            let cap = a.startedAt.addingTimeInterval(s.config.deviceRules.maxTotalDuration)
            a.state = .ended
            a.endedAt = now
            a.dismissalDate = min(dismissal == .immediate ? now : now.addingTimeInterval(s.config.deviceRules.defaultDismissalDelay), cap)
            s.activities[activityID]!.snapshot = a
            s.emit(now, a.deviceID, a.bundleID, .activityState(activityID: activityID, state: .ended))
            s.tick(now)
        }
    }
}
