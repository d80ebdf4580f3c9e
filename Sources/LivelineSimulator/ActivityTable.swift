import Foundation

/// The simulator's activities, with the indexes that spare ticks, starts and broadcasts a walk over
/// every activity: running activities per app on a device, subscribers per channel, the next
/// time-based deadline of each activity (`DeadlineQueue`), and dismissed activities in the order
/// they were dismissed, so the oldest can be dropped (`SimulatorConfiguration.dismissedActivityCapacity`
/// and `dismissedActivityRetention`).
///
/// Every write goes through the subscript, which updates the indexes from the old and new record.
struct ActivityTable: Sendable {
    typealias Record = SimulatorState.ActivityRecord

    /// An app on a device.
    struct AppKey: Sendable, Hashable {
        var deviceID: String
        var bundleID: String
    }

    private var records: [String: Record] = [:]
    /// Ids in start order; removed ids stay until `compactOrder` (lazily, when they are half of it).
    private var order: [String] = []
    private var removedFromOrder = 0
    /// Pending, active or stale activities by app and device.
    private var running: [AppKey: Set<String>] = [:]
    /// Activities not yet dismissed, by channel, in start order.
    private var channelSubscribers: [String: [String]] = [:]
    /// Dismissed activities, oldest dismissal first, from `dismissedHead` on.
    private var dismissed: [String] = []
    private var dismissedHead = 0
    /// Each activity's next deadline (absent when none is due: dismissed).
    private var deadlineOf: [String: Date] = [:]
    private var deadlines = DeadlineQueue()
    let rules: DeviceRules

    init(rules: DeviceRules) { self.rules = rules }

    /// Activities held (any state).
    var count: Int { records.count }
    /// Dismissed activities still held.
    var dismissedCount: Int { dismissed.count - dismissedHead }
    /// Entries in the deadline heap (current plus not yet skipped).
    var deadlineEntries: Int { deadlines.count }

    subscript(id: String) -> Record? {
        get { records[id] }
        set {
            if let newValue {
                let old = records.updateValue(newValue, forKey: id)
                if old == nil { order.append(id) }
                reindex(id, old: old?.snapshot, new: newValue.snapshot)
            } else if let old = records.removeValue(forKey: id) {
                unindex(id, old.snapshot)
            }
        }
    }

    /// Every activity in start order.
    var inStartOrder: [Record] { order.compactMap { records[$0] } }

    /// Active or stale activities of `bundleID` on `deviceID`.
    func runningCount(deviceID: String, bundleID: String) -> Int {
        running[AppKey(deviceID: deviceID, bundleID: bundleID)]?.count ?? 0
    }

    /// Ids of `deviceID`'s activities of `bundleID` that are not dismissed, in start order.
    func notDismissed(deviceID: String, bundleID: String) -> [String] {
        order.filter { id in
            guard let s = records[id]?.snapshot else { return false }
            return s.deviceID == deviceID && s.bundleID == bundleID && s.state != .dismissed
        }
    }

    /// Activities subscribed to `channelID` and not dismissed, in start order.
    func subscribers(of channelID: String) -> [String] { channelSubscribers[channelID] ?? [] }

    /// Takes the id of an activity whose deadline is due by `now`, earliest first.
    mutating func popDue(_ now: Date) -> String? {
        skipStaleDeadlines()
        guard let top = deadlines.first, top.date <= now else { return nil }
        deadlines.popFirst()
        deadlineOf[top.id] = nil
        return top.id
    }

    /// Removes dismissed activities beyond `capacity`, and those dismissed `retention` or more before
    /// `now`, oldest first; returns them.
    mutating func pruneDismissed(capacity: Int, retention: TimeInterval, now: Date) -> [Record] {
        var removed: [Record] = []
        while dismissedHead < dismissed.count {
            let id = dismissed[dismissedHead]
            guard let record = records[id] else { dismissedHead += 1; continue }
            let at = record.snapshot.dismissalDate ?? record.snapshot.endedAt ?? record.snapshot.startedAt
            guard dismissedCount > max(0, capacity) || at.addingTimeInterval(retention) <= now else { break }
            dismissedHead += 1
            records[id] = nil
            unindex(id, record.snapshot)
            removed.append(record)
        }
        if dismissedHead > 64 && dismissedHead * 2 > dismissed.count {
            dismissed.removeFirst(dismissedHead)
            dismissedHead = 0
        }
        return removed
    }

    // MARK: - Indexes

    private mutating func reindex(_ id: String, old: ActivitySnapshot?, new: ActivitySnapshot) {
        let key = AppKey(deviceID: new.deviceID, bundleID: new.bundleID)
        // A scheduled (pending) activity counts against the app's limit as a running one does.
        let wasRunning = old.map { $0.state == .pending || $0.state == .active || $0.state == .stale } ?? false
        let isRunning = new.state == .pending || new.state == .active || new.state == .stale
        if isRunning && !wasRunning { running[key, default: []].insert(id) }
        if wasRunning && !isRunning { removeRunning(id, key) }
        if let channel = new.channelID {
            let wasSubscribed = old.map { $0.state != .dismissed } ?? false
            if old == nil && new.state != .dismissed { channelSubscribers[channel, default: []].append(id) }
            if wasSubscribed && new.state == .dismissed { removeSubscriber(id, channel) }
        }
        if new.state == .dismissed && old?.state != .dismissed { dismissed.append(id) }
        let due = deadline(new)
        if due != deadlineOf[id] {
            deadlineOf[id] = due
            if let due { deadlines.push(due, id) }
            if deadlines.count > 2 * deadlineOf.count + 64 { deadlines.compact(keeping: deadlineOf) }
        }
    }

    private mutating func unindex(_ id: String, _ s: ActivitySnapshot) {
        removeRunning(id, AppKey(deviceID: s.deviceID, bundleID: s.bundleID))
        if let channel = s.channelID { removeSubscriber(id, channel) }
        deadlineOf[id] = nil
        removedFromOrder += 1
        if removedFromOrder > 64 && removedFromOrder * 2 > order.count {
            order.removeAll { records[$0] == nil }
            removedFromOrder = 0
        }
    }

    private mutating func removeRunning(_ id: String, _ key: AppKey) {
        guard let index = running.index(forKey: key) else { return }
        running.values[index].remove(id)
        if running.values[index].isEmpty { running.remove(at: index) }
    }

    private mutating func removeSubscriber(_ id: String, _ channel: String) {
        guard let index = channelSubscribers.index(forKey: channel) else { return }
        channelSubscribers.values[index].removeAll { $0 == id }
        if channelSubscribers.values[index].isEmpty { channelSubscribers.remove(at: index) }
    }

    private mutating func skipStaleDeadlines() {
        while let top = deadlines.first, deadlineOf[top.id] != top.date { deadlines.popFirst() }
    }

    /// When the activity's next time-based transition is due: stale, the end after
    /// `maxActiveDuration`, or its removal from the Lock Screen.
    private func deadline(_ s: ActivitySnapshot) -> Date? {
        let endLimit = s.startedAt.addingTimeInterval(rules.maxActiveDuration)
        switch s.state {
        case .pending: return s.startedAt
        case .active: return min(s.staleDate ?? endLimit, endLimit)
        case .stale: return endLimit
        case .ended: return s.dismissalDate
        case .dismissed: return nil
        }
    }
}
