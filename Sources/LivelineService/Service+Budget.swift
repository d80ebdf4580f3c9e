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
        /// Why the priority was lowered (the channel row's note).
        var note: String?
        /// The iOS 18 devices holding an activity on the channel.
        var holders: [ChannelHolder]
        /// Of them, those whose priority-10 budget for their activity is spent: `deviceID` → "used of budget".
        var overBudget: [String: String]
        var findings: [LintFinding]

        /// The ledger's lines for the send `sendID`: each holder spent a priority-10 push, or got the
        /// broadcast lowered to 5. A priority-5 broadcast nobody lowered costs nothing.
        func charges(sendID: Int64, now: Date) -> [BudgetCharge] {
            if priority == 10 {
                return holders.map { BudgetCharge(sendID: sendID, activityID: $0.activityID, deviceID: $0.device.deviceID, kind: .immediate, via: .channel, createdAt: now) }
            }
            guard note != nil else { return [] }
            return holders.map { h in
                let why = overBudget[h.device.deviceID].map { "priority lowered to 5: this device used \($0) priority-10 pushes for \(h.activityID) this hour" }
                    ?? "priority lowered to 5: other devices on the channel had spent their priority-10 budget (\(overBudget.count) of \(holders.count))"
                return BudgetCharge(sendID: sendID, activityID: h.activityID, deviceID: h.device.deviceID, kind: .lowered, via: .channel, note: why, createdAt: now)
            }
        }
    }

    /// A broadcast on `channelID` asked for at `requested`: at priority 10 it counts against the
    /// hourly budget of every device holding an activity on the channel; when any of them has spent
    /// it, the broadcast goes at 5 (which no device counts or throttles), with the reason.
    func broadcastBudget(channelID: String, requested: Int, tx: any StoreTransaction, now: Date) throws -> BroadcastBudget {
        let holders = try tx.channelHolders(channelID: channelID, now: now).filter {
            // Only iOS 18 follows a channel; older devices of the activity get per-token pushes.
            guard let v = OSVersionNumber($0.device.iosVersion) else { return false }
            return v >= OSVersionNumber(18, 0)
        }
        var result = BroadcastBudget(priority: requested, holders: holders, overBudget: [:], findings: [])
        guard requested == 10, !holders.isEmpty else { return result }
        let ledger = BudgetLedger(configuration)
        let hourAgo = now.addingTimeInterval(-3600)
        var used: [String: [String: Int]] = [:]
        for id in Set(holders.map(\.activityID)) { used[id] = try tx.immediateCounts(activityID: id, since: hourAgo) }
        for h in holders {
            let budget = ledger.immediateBudget(h.device), spent = used[h.activityID]?[h.device.deviceID] ?? 0
            if spent >= budget { result.overBudget[h.device.deviceID] = "\(spent) of \(budget)" }
        }
        guard !result.overBudget.isEmpty else { return result }
        let names = result.overBudget.keys.sorted()
        let list = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
        let message = "priority lowered to 5: \(names.count) of \(holders.count) devices on channel \(channelID) spent their priority-10 budget this hour (\(list)); at 10 they would throttle it"
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
        return try store.write { tx in
            guard let device = try tx.device(deviceID) else { throw APIError.notFound("device \(deviceID) is not registered") }
            try c.requireApp(device.bundleID, hiding: "device \(deviceID) is not registered")
            return Answer(200, try BudgetLedger(configuration).snapshot(device: device, activityID: activityID, now: c.now, tx: tx))
        }
    }

    /// The budget ledgers of the devices of an activity (its update tokens, the devices on its channel,
    /// the devices of its newest deliveries; at most `limit`), each limited to the activity's lines:
    /// for the service's dashboard, which has no API key (the caller is in the same process).
    public func activityBudgets(_ activityID: String, limit: Int = 20) throws -> JSONValue {
        try store.write { tx in
            guard let activity = try tx.activity(activityID) else { return [] }
            var ids: [String] = []
            var seen = Set<String>()
            func add(_ id: String?) { if let id, ids.count < limit, seen.insert(id).inserted { ids.append(id) } }
            for t in try tx.activityTokens(activityID: activityID, limit: limit) { add(t.deviceID) }
            if let channel = activity.channelID {
                for h in try tx.channelHolders(channelID: channel, now: Date()) where h.activityID == activityID { add(h.device.deviceID) }
            }
            for d in try tx.deliveries(activityID: activityID, limit: 50) { add(d.deviceID) }
            let ledger = BudgetLedger(configuration)
            return .array(try ids.compactMap { id in
                guard let device = try tx.device(id) else { return nil }
                return try ledger.snapshot(device: device, activityID: activityID, now: Date(), tx: tx)
            })
        }
    }
}
