import Foundation
import LivelineCore
import LivelineStore

/// One device's budgets as a ledger: the priority-10 pushes it received this hour (by token or by
/// broadcast) against the hourly budget of each activity, the push-to-starts in the start window,
/// what was lowered to priority 5 and why, and which waiting updates were coalesced (a newer one
/// for the same activity replaced them before they were sent; each such row ends `superseded`).
///
/// Read-only: the send paths spend the budget (Service+Sends, Service+Budget); this only reads the
/// store. `GET /v1/devices/{deviceID}/budget` answers `snapshot`; a per-device status can embed it.
struct BudgetLedger {
    /// Priority-10 pushes an activity may receive per hour on a device, and with frequent updates.
    var immediatePerHour: Int
    var frequentImmediatePerHour: Int
    /// Push-to-starts a device may receive in `startWindow`.
    var startBudget: Int
    var startWindow: TimeInterval
    /// Lowered and coalesced lines listed at most (newest first).
    var listLimit = 100

    init(_ configuration: ServiceConfiguration) {
        immediatePerHour = configuration.immediateBudgetPerHour
        frequentImmediatePerHour = configuration.frequentImmediateBudgetPerHour
        startBudget = configuration.startBudget
        startWindow = configuration.startBudgetWindow.seconds
    }

    /// The hourly priority-10 budget of one activity on `device`.
    func immediateBudget(_ device: DeviceRecord?) -> Int {
        (device?.frequentUpdates ?? false) ? frequentImmediatePerHour : immediatePerHour
    }

    /// The ledger of `device` at `now`; with `activityID`, only that activity's lines (the
    /// push-to-start budget is the device's, whichever activity spent it).
    func snapshot(device: DeviceRecord, activityID: String? = nil, now: Date, tx: any StoreTransaction) throws -> JSONValue {
        let hourAgo = now.addingTimeInterval(-3600)
        // Only iOS 18 follows channels; an older device of a channel activity gets its pushes by token.
        let follows = OSVersionNumber(device.iosVersion).map { $0 >= OSVersionNumber(18, 0) } ?? false
        let all = try tx.budgetEntries(deviceID: device.deviceID, followsChannels: follows, immediateSince: hourAgo,
                                       startSince: now.addingTimeInterval(-startWindow), limit: listLimit)
        let entries = activityID.map { id in all.filter { $0.kind == .start || $0.activityID == id } } ?? all
        let budget = immediateBudget(device)

        // Priority 10, per activity (the device keeps one budget per activity).
        var byActivity: [String: [BudgetEntry]] = [:]
        for e in entries where e.kind == .immediate { byActivity[e.activityID, default: []].append(e) }
        if let activityID, byActivity[activityID] == nil { byActivity[activityID] = [] }  // asked for: shown, even unspent
        let activities = byActivity.keys.sorted().map { id -> JSONValue in
            let spent = byActivity[id]!.sorted { $0.at < $1.at }
            var o: JSONObject = [
                "activityID": .string(id), "spent": .number(Double(spent.count)), "remaining": .number(Double(max(0, budget - spent.count))),
                "byToken": .number(Double(spent.filter { $0.via == "token" }.count)),
                "byBroadcast": .number(Double(spent.filter { $0.via == "channel" }.count)),
            ]
            // When the budget is spent, the next push is free once enough of these have left the hour.
            if budget > 0, spent.count >= budget { o["refillsAt"] = .string(ISODate.string(spent[spent.count - budget].at.addingTimeInterval(3600))) }
            return .object(o)
        }
        let starts = entries.filter { $0.kind == .start }.sorted { $0.at < $1.at }
        var pushToStart: JSONObject = [
            "budget": .number(Double(startBudget)), "windowSeconds": .number(startWindow),
            "spent": .number(Double(starts.count)), "remaining": .number(Double(max(0, startBudget - starts.count))),
            "activityIDs": .array(starts.map { .string($0.activityID) }),
        ]
        if startBudget > 0, starts.count >= startBudget {
            pushToStart["refillsAt"] = .string(ISODate.string(starts[starts.count - startBudget].at.addingTimeInterval(startWindow)))
        }

        func lines(_ kind: BudgetEntry.Kind) -> JSONValue {
            let list = entries.filter { $0.kind == kind }
            var o: JSONObject = ["count": .number(Double(list.count)), "recent": .array(list.map(Self.json))]
            if all.filter({ $0.kind == kind }).count >= listLimit { o["more"] = true }
            return .object(o)
        }
        var o: JSONObject = [
            "deviceID": .string(device.deviceID), "bundleID": .string(device.bundleID), "at": .string(ISODate.string(now)),
            "immediate": [
                "budgetPerHour": .number(Double(budget)), "frequentUpdates": .bool(device.frequentUpdates),
                "spent": .number(Double(entries.filter { $0.kind == .immediate }.count)), "activities": .array(activities),
            ],
            "pushToStart": .object(pushToStart),
            "lowered": lines(.lowered),
            "coalesced": lines(.coalesced),
        ]
        if let activityID { o["activityID"] = .string(activityID) }
        return .object(o)
    }

    static func json(_ e: BudgetEntry) -> JSONValue {
        var o: JSONObject = ["activityID": .string(e.activityID), "at": .string(ISODate.string(e.at))]
        if let s = e.sendID { o["sendID"] = .number(Double(s)) }
        if let d = e.deliveryID { o["deliveryID"] = .number(Double(d)) }
        if let v = e.via { o["via"] = .string(v) }
        if let n = e.note { o["reason"] = .string(n) }
        return .object(o)
    }
}
