import Foundation
import LivelineCore
import LivelineStore

extension LintFinding.Code {
    /// A broadcast asked for at priority 10 went out at 5: devices following its channel had spent
    /// their hourly priority-10 budget, and a device throttles a push beyond it.
    static let broadcastOverBudget = Self(rawValue: "broadcast-over-budget")
    /// Updates to tokens asked for at priority 10 went out at 5: those devices had spent their budget.
    static let priorityLowered = Self(rawValue: "priority-lowered")
}

/// ActivityKit's budgets on the send paths: the default priority, broadcasts counted against every
/// device that follows the channel, and the ledger's route (BudgetLedger.swift).
extension Service {
    /// The priority of an update or end that names none: 10 (spent from the device's hourly budget,
    /// delivered at once) only when it carries an alert, which the person is meant to notice now;
    /// otherwise 5, which costs no budget (Apple's advice: 10 only for what needs immediate attention).
    static func defaultPriority(alert: Alert?) -> Int { alert == nil ? 5 : 10 }

    /// What a broadcast does to the budgets of the devices following its channel.
    struct BroadcastBudget {
        var priority: Int
        /// Why the priority was lowered (the channel row's note and the ledger's reason).
        var note: String?
        var findings: [LintFinding]

        /// Records the broadcast `sendID` in the ledger of every running activity on `channelID`
        /// (one row per activity, read for each device holding it): a priority-10 push spent, or a
        /// push lowered to 5 with the reason. A priority-5 broadcast nobody lowered costs nothing.
        func record(sendID: Int64, channelID: String, tx: any StoreTransaction, now: Date) throws {
            if priority == 10 {
                try tx.insertBroadcastCharges(sendID: sendID, channelID: channelID, kind: .immediate, note: nil, now: now)
            } else if let note {
                try tx.insertBroadcastCharges(sendID: sendID, channelID: channelID, kind: .lowered, note: note, now: now)
            }
        }
    }

    /// A broadcast on `channelID` asked for at `requested`: at priority 10 it counts against the
    /// hourly budget of every iOS 18 device holding an activity on the channel; when any of them
    /// has spent it, the broadcast goes at 5 (which no device counts or throttles), with the reason.
    /// The store finds the followers and their spending in one statement, and the send records one
    /// row per activity on the channel, whatever the number of devices.
    func broadcastBudget(channelID: String, requested: Int, tx: any StoreTransaction, now: Date) throws -> BroadcastBudget {
        var result = BroadcastBudget(priority: requested, findings: [])
        guard requested == 10 else { return result }
        let followers = try tx.channelBudgetUse(channelID: channelID, now: now, since: now.addingTimeInterval(-3600), budget: configuration.immediateBudgetPerHour,
                                                frequentBudget: configuration.frequentImmediateBudgetPerHour, limit: 5)
        let use = try withMembers(followers, channelID: channelID, now: now, tx: tx)  // app-started activities on it (Service+ChannelMembers.swift)
        guard use.overBudgetCount > 0 else { return result }
        let names = use.overBudget.map { "\($0.deviceID) \($0.spent) of \($0.budget)" }.joined(separator: ", ")
            + (use.overBudgetCount > use.overBudget.count ? " and \(use.overBudgetCount - use.overBudget.count) more" : "")
        let message = "priority lowered to 5: \(use.overBudgetCount) of \(use.holders) devices on channel \(channelID) spent their priority-10 budget this hour (\(names)); at 10 they would throttle it"
        result.priority = 5
        result.note = message
        result.findings = [LintFinding(.warning, .broadcastOverBudget, path: "apns-priority", message)]
        return result
    }

    /// The warning for updates to tokens lowered to 5.
    static func loweredFinding(_ count: Int) -> [LintFinding] {
        guard count > 0 else { return [] }
        return [LintFinding(.warning, .priorityLowered, path: "apns-priority",
                            "priority lowered to 5 for \(count) device\(count == 1 ? "" : "s") that spent their priority-10 budget this hour (GET /v1/devices/{deviceID}/budget)")]
    }

    /// `GET /v1/devices/{deviceID}/budget`: the device's ledger (BudgetLedger).
    func getDeviceBudget(_ c: RequestContext) throws -> Answer {
        let deviceID = c.param("deviceID")
        let activityID = c.request.queryValue("activityID")
        if let activityID, !(1...200).contains(activityID.utf8.count) {
            throw APIError.invalid("activityID", "must be an activity id of 1 to 200 characters, got \(activityID.utf8.count)")
        }
        return try store.write { tx in
            guard let device = try tx.device(deviceID) else { throw APIError.notFound("device \(deviceID) is not registered") }
            try c.requireApp(device.bundleID, hiding: "device \(deviceID) is not registered")
            return Answer(200, try BudgetLedger(configuration).snapshot(device: device, activityID: activityID, now: c.now, tx: tx))
        }
    }
}
