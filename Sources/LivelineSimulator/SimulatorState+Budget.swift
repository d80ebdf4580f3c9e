import Foundation

/// The push-to-start budget (apns-protocol.md §7.3): each app on a device may be started by push
/// `pushToStartBudget` times in `pushToStartWindow`; beyond it the device drops the start (APNs
/// still answers 200). The priority-10 update budget is per activity (SimulatorState+Delivery).
extension SimulatorState {
    /// Spends one push-to-start of `bundleID` on `deviceID`, or, over the budget, the drop.
    mutating func spendStartBudget(deviceID: String, bundleID: String, now: Date) -> Delivery? {
        guard let d = devices.index(forKey: deviceID), let a = devices.values[d].apps.index(forKey: bundleID) else { return nil }
        let rules = config.deviceRules
        devices.values[d].apps.values[a].startLog.removeAll { now.timeIntervalSince($0) >= rules.pushToStartWindow }
        let log = devices.values[d].apps.values[a].startLog
        if log.count >= rules.pushToStartBudget {
            let next = log.first.map { Self.iso($0.addingTimeInterval(rules.pushToStartWindow)) } ?? "later"
            return drop(deviceID, nil, .pushToStartBudget,
                        "\(rules.pushToStartBudget) push-to-starts of \(bundleID) in the last \(Int(rules.pushToStartWindow / 60)) minutes exhaust its budget; the next is allowed at \(next)")
        }
        devices.values[d].apps.values[a].startLog.append(now)
        return nil
    }
}
