import Foundation
import LivelineStore

/// Claimed outbox rows that were never sent: the store failed before the push (reading its send
/// or its app), or the app's client was shut down or cancelled under it. They go back to
/// `retrying` after `retryBase` (jittered), with the attempt their claim counted given back: a
/// brief store error or a client replaced mid-batch must neither fail a push nor spend its attempts.
struct UnsentRows {
    private var byReason: [String: [Int64]] = [:]

    mutating func add(_ row: DeliveryRecord, _ reason: String) { byReason[reason, default: []].append(row.id) }

    var isEmpty: Bool { byReason.isEmpty }

    /// Gives the rows back in one transaction. When that fails too (the store is still down), they
    /// stay `sending` and go again when their lease ends, as rows whose verdicts were not recorded do.
    func giveBack(_ store: OffPoolStore, retryBase: Duration, log: @Sendable (String) -> Void) async {
        if byReason.isEmpty { return }
        let groups = byReason
        let delay = retryBase.seconds * Double.random(in: 0.8...1.2)
        do {
            try await store.write { tx in
                let now = Date()
                for (reason, ids) in groups {
                    _ = try tx.releaseUnsent(ids, reason: reason, nextAttemptAt: now.addingTimeInterval(delay), now: now)
                }
            }
        } catch {
            log("outbox: cannot give back \(groups.values.map(\.count).reduce(0, +)) unsent rows (\(groups.keys.sorted().joined(separator: "; "))); they go again when their lease ends: \(error)")
        }
    }
}
