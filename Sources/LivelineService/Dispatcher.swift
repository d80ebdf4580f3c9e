import Foundation
import LivelineAPNS
import LivelineCore
import LivelineStore
import Synchronization

/// The outbox's workers: they claim due rows under a lease, send them through the app's shared
/// `APNSClient` (the bulk path), and record every verdict. Transient failures wait in the store
/// with exponential backoff, so a restart loses nothing; dead tokens are pruned.
final class Dispatcher: Sendable {
    private let store: OffPoolStore
    private let configuration: ServiceConfiguration
    private let clients: ClientRegistry
    private let metrics: Metrics
    private let log: @Sendable (String) -> Void
    /// Told when rows are claimed and when their verdicts are recorded (ServiceChanges.swift).
    let changes = ServiceChanges()
    private struct State {
        var stopping = false
        /// The pipelines waiting for work, each with its own continuation.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Counts wake-ups: a pipeline that read it before claiming knows whether work came since.
        var generation: UInt64 = 0
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Pipelines claiming and sending at once, each with a quarter of `maxInFlight`: while one
    /// records its verdicts and claims again, the others keep the window full. (Four: 0.48× the
    /// raw client on a 100,000-token fan-out, `liveline bench service`; eight were no faster.)
    static let pipelines = 4

    init(store: any Store, configuration: ServiceConfiguration, clients: ClientRegistry, metrics: Metrics, log: @escaping @Sendable (String) -> Void) {
        self.store = OffPoolStore(store, label: "liveline.outbox.store")
        self.configuration = configuration
        self.clients = clients
        self.metrics = metrics
        self.log = log
    }

    func start() {
        let tasks = (0..<Self.pipelines).map { _ in Task { await self.run() } }
        state.withLock { $0.tasks = tasks }
    }

    /// New work is in the outbox.
    func wake() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops claiming; rows already claimed finish and are recorded.
    func stop() async {
        let (tasks, waiters) = state.withLock { s in
            s.stopping = true
            defer { s.waiters.removeAll() }
            return (s.tasks, s.waiters)
        }
        for waiter in waiters { waiter.resume() }
        for task in tasks { await task.value }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func run() async {
        while !stopping {
            let seen = state.withLock { $0.generation }
            let now = configuration.clock()
            let rows: [DeliveryRecord]
            do {
                let limit = max(1, configuration.maxInFlight / Self.pipelines)
                let leaseUntil = now.addingTimeInterval(configuration.lease.seconds)
                rows = try await store.write { tx in
                    _ = try tx.releaseExpiredLeases(now: now)
                    return try tx.claimDue(now: now, limit: limit, leaseUntil: leaseUntil)
                }
            } catch {
                log("outbox: cannot claim rows: \(error)")
                await idle(until: configuration.clock().addingTimeInterval(1), seen: seen)
                continue
            }
            if rows.isEmpty {
                let next = (try? await store.write { try $0.nextDue() }) ?? nil
                await idle(until: min(next ?? .distantFuture, configuration.clock().addingTimeInterval(1)), seen: seen)
                continue
            }
            changes.outboxChanged(rows)
            await deliver(rows)
            changes.outboxChanged(rows)
        }
    }

    /// Waits until `deadline`, a wake-up after `seen`, or stop.
    private func idle(until deadline: Date, seen: UInt64) async {
        let delay = deadline.timeIntervalSince(configuration.clock())
        if delay <= 0 { return }
        let timer = Task {
            // Cancelled (woken earlier), it must not wake anyone: that would turn idling into a spin.
            guard (try? await Task.sleep(for: .milliseconds(Int64(delay * 1000)))) != nil else { return }
            self.wake()
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.generation != seen || s.stopping { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
        timer.cancel()
    }

    /// Sends one claimed batch and records the verdicts as they come.
    private func deliver(_ rows: [DeliveryRecord]) async {
        let started = Date()
        var sends: [Int64: SendRecord] = [:]
        var requests: [Int64: PushRequest] = [:]
        var outcomes: [DeliveryOutcome] = []
        var byApp: [String: [(DeliveryRecord, PushRequest)]] = [:]  // by bundle id and the tokens' environment
        var apps: [String: AppRecord] = [:]
        var prune: [(DeliveryRecord, APNSResult.Rejection)] = []
        var unsent = UnsentRows()

        for row in rows {
            if sends[row.sendID] == nil {
                let id = row.sendID
                do { sends[id] = try await store.write { try $0.send(id) } } catch { unsent.add(row, "the store failed: \(error)"); continue }
            }
            guard let send = sends[row.sendID] else {
                outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: "the send record is missing"))
                continue
            }
            if apps[send.bundleID] == nil {
                let bundleID = send.bundleID
                do { apps[bundleID] = try await store.write { try $0.app(bundleID: bundleID) } } catch { unsent.add(row, "the store failed: \(error)"); continue }
            }
            guard let app = apps[send.bundleID] else {
                outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: "app \(send.bundleID) is not registered (POST /v1/apps)"))
                continue
            }
            let environment = row.environment ?? app.environment
            guard app.enabledEnvironments.contains(environment) else {  // refused before APNs is asked (TokenHygiene)
                outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: TokenHygiene.mismatch(environment, app: app)))
                continue
            }
            let request: PushRequest
            if let cached = requests[row.sendID] {
                request = cached
            } else if let body = try? JSONValue.parse(send.body) {
                request = PushRequest(pushType: .liveActivity, topic: PushType.liveActivity.topic(forBundleID: send.bundleID), priority: .immediate, body: body)
                requests[row.sendID] = request
            } else {
                outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: "the stored body is not JSON"))
                continue
            }
            var perRow = request
            perRow.priority = row.priority == 5 ? .considerate : .immediate
            byApp[send.bundleID + " " + environment, default: []].append((row, perRow))
        }

        func classify(_ row: DeliveryRecord, _ result: APNSResult) {
            let latency = Date().timeIntervalSince(started)
            switch result {
            case .accepted(let a):
                metrics.push(result: "sent", reason: nil, latency: latency)
                outcomes.append(DeliveryOutcome(id: row.id, state: .sent, apnsID: a.apnsID, status: 200))
            case .rejected(let r):
                metrics.push(result: "rejected", reason: r.reason.rawValue, latency: latency)
                if r.reason == .unregistered || r.reason == .badDeviceToken || r.reason == .expiredToken {
                    prune.append((row, r))
                } else if r.policy.retries {
                    outcomes.append(retry(row, status: r.status, reason: r.reason.rawValue, apnsID: r.apnsID))
                } else {
                    outcomes.append(DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: r.reason.rawValue))
                }
            case .failed(let e):
                metrics.push(result: "error", reason: e.code.rawValue, latency: nil)
                switch e.code {
                case .shutdown, .cancelled:
                    unsent.add(row, "\(e.code): \(e.message)")  // never sent: no attempt spent
                case .invalidRequest, .invalidDeviceToken, .configuration:
                    outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: "\(e.code): \(e.message)"))
                default:
                    outcomes.append(retry(row, status: nil, reason: "\(e.code): \(e.message)", apnsID: nil))
                }
            }
        }

        for (slot, items) in byApp {
            let parts = slot.split(separator: " ")
            let bundleID = String(parts[0])
            guard let app = apps[bundleID] else { continue }
            let client: APNSClient
            do { client = try clients.client(for: app, tokens: String(parts[1])) } catch {
                for (row, _) in items { outcomes.append(DeliveryOutcome(id: row.id, state: .failed, reason: error.message)) }
                continue
            }
            let channelItems = items.filter { $0.0.target == .channel }
            for (row, request) in channelItems {
                let result = await client.broadcast(request, channelID: row.token, bundleID: bundleID)
                if case .rejected(let r) = result, r.reason == .channelNotRegistered {  // an on-demand channel is created again
                    metrics.push(result: "rejected", reason: r.reason.rawValue, latency: Date().timeIntervalSince(started))
                    let recovered = await ActivityChannelRecovery.recover(row, r, client: client, store: store)
                    outcomes.append(recovered.outcome)
                    if recovered.resent { wake() }
                    continue
                }
                classify(row, result)
            }
            let tokenItems = items.filter { $0.0.target != .channel }
            if tokenItems.isEmpty { continue }
            let pushes = tokenItems.map { ($0.1, $0.0.token) }
            for await result in client.sendAll(pushes) {
                classify(tokenItems[result.index].0, result.result)
                if outcomes.count >= 256 { await flush(&outcomes, &prune) }
            }
        }
        await flush(&outcomes, &prune)
        await unsent.giveBack(store, retryBase: configuration.retryBase, log: log)
    }

    private func retry(_ row: DeliveryRecord, status: Int?, reason: String, apnsID: String?) -> DeliveryOutcome {
        guard row.attempts < configuration.maxAttempts else {
            return DeliveryOutcome(id: row.id, state: .failed, apnsID: apnsID, status: status, reason: "\(reason) (gave up after \(row.attempts) attempts)")
        }
        let base = configuration.retryBase.seconds, cap = configuration.retryMax.seconds
        let delay = min(cap, base * pow(2, Double(max(0, row.attempts - 1)))) * Double.random(in: 0.8...1.2)
        return DeliveryOutcome(id: row.id, state: .retrying, apnsID: apnsID, status: status, reason: reason, nextAttemptAt: configuration.clock().addingTimeInterval(delay))
    }

    /// Records verdicts in one transaction; dead tokens are pruned there, unless the device
    /// registered a token again after APNs learned the old one was dead.
    private func flush(_ outcomes: inout [DeliveryOutcome], _ prune: inout [(DeliveryRecord, APNSResult.Rejection)]) async {
        if outcomes.isEmpty && prune.isEmpty { return }
        let batch = outcomes, dead = prune, now = configuration.clock()
        outcomes.removeAll(keepingCapacity: true)
        prune.removeAll(keepingCapacity: true)
        do {
            try await store.write { tx in
                var all = batch
                for (row, r) in dead { all.append(try Self.pruneOutcome(row, r, tx)) }
                try tx.record(all, now: now)
            }
        } catch {
            // The rows stay `sending` and return to the queue when their lease ends.
            log("outbox: cannot record \(batch.count + dead.count) verdicts: \(error)")
        }
    }

    static func pruneOutcome(_ row: DeliveryRecord, _ r: APNSResult.Rejection, _ tx: any StoreTransaction) throws -> DeliveryOutcome {
        // BadDeviceToken: most often a token of the other environment; kept and marked, not deleted.
        if r.reason == .badDeviceToken { return try TokenHygiene.refuseOutcome(row, r, tx) }
        let reason = r.reason.rawValue
        guard let device = row.deviceID else { return DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: reason) }
        let current: TokenRecord?
        if row.target == .pushToStart {
            let type = try tx.activity(row.activityID)?.attributesType ?? ""
            current = try tx.pushToStartToken(deviceID: device, attributesType: type)
        } else {
            current = try tx.activityToken(activityID: row.activityID, deviceID: device)
        }
        guard let current, current.token == row.token else {
            return DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: "\(reason) (the token was already replaced or removed)")
        }
        if let learned = r.timestamp, learned < current.registeredAt {
            return DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: "\(reason) (older than the token's registration; kept)")
        }
        if row.target == .pushToStart {
            _ = try tx.deletePushToStartToken(deviceID: device, token: row.token)
        } else {
            _ = try tx.deleteActivityToken(activityID: row.activityID, deviceID: device, token: row.token)
        }
        return DeliveryOutcome(id: row.id, state: .pruned, apnsID: r.apnsID, status: r.status, reason: reason)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
