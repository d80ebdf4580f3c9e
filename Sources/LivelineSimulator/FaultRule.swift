import Foundation
import LivelineCore

/// A fault to inject into pushes: what to do, to which requests, how often. Faults are drawn from the
/// simulator's seeded generator, so the same seed and request order give the same faults.
public struct FaultRule: Sendable, Hashable {
    /// What the fault does.
    public enum Action: Sendable, Hashable {
        /// Answer with this reason and its status instead of validating (429 `TooManyRequests`,
        /// 500 `InternalServerError`, 503 `ServiceUnavailable`, 503 `Shutdown`...).
        case respond(APNSReason)
        /// Answer with this reason, then GOAWAY with `{"reason": ...}` as debug data and close.
        case goAway(APNSReason)
        /// Close the connection without answering.
        case dropConnection
        /// Reset the stream (RST_STREAM, REFUSED_STREAM) without answering.
        case resetStream
        /// Process normally after waiting this many seconds.
        case latency(TimeInterval)
        /// Process normally, then lower the connection's MAX_CONCURRENT_STREAMS to this value.
        case lowerStreamLimit(Int)
    }

    /// Which requests the rule applies to.
    public enum Scope: Sendable, Hashable {
        /// Every device push and broadcast.
        case all
        /// Device pushes to this token.
        case token(String)
        /// Broadcasts on this channel.
        case channel(String)
    }

    /// What the fault does.
    public var action: Action
    /// Which requests it applies to.
    public var scope: Scope
    /// Chance that a matching request is hit (1 = always).
    public var probability: Double
    /// Matching requests to let through before the rule starts.
    public var skipFirst: Int
    /// Most times the rule fires (`nil`: no limit).
    public var limit: Int?
    /// Fire on every `every`-th matching request after `skipFirst` only (request `skipFirst + every`,
    /// `skipFirst + 2 × every`, ...): a periodic fault, such as a GOAWAY every 10,000 streams
    /// (`nil`: every matching request is a candidate).
    public var every: Int?

    /// A rule; by default it fires on every matching request.
    public init(_ action: Action, scope: Scope = .all, probability: Double = 1, skipFirst: Int = 0, limit: Int? = nil, every: Int? = nil) {
        self.action = action
        self.scope = scope
        self.probability = probability
        self.skipFirst = skipFirst
        self.limit = limit
        self.every = every.map { max(1, $0) }
    }
}

/// The faults in force and how often each has matched and fired.
struct FaultState: Sendable {
    var rules: [FaultRule] = []
    var matched: [Int] = []
    var fired: [Int] = []

    mutating func add(_ rule: FaultRule) {
        rules.append(rule)
        matched.append(0)
        fired.append(0)
    }

    mutating func clear() {
        rules = []
        matched = []
        fired = []
    }

    /// The actions that fire for a request to `token` or `channel`, in rule order.
    mutating func draw(token: String?, channel: String?, rng: inout SeededGenerator) -> [FaultRule.Action] {
        if rules.isEmpty { return [] }
        var actions: [FaultRule.Action] = []
        for i in rules.indices {
            let rule = rules[i]
            switch rule.scope {
            case .all: break
            case .token(let t): if t.lowercased() != token?.lowercased() { continue }
            case .channel(let c): if c != channel { continue }
            }
            matched[i] += 1
            if matched[i] <= rule.skipFirst { continue }
            if let every = rule.every, (matched[i] - rule.skipFirst) % every != 0 { continue }
            if let limit = rule.limit, fired[i] >= limit { continue }
            if rule.probability < 1, rng.unit() >= rule.probability { continue }
            fired[i] += 1
            actions.append(rule.action)
        }
        return actions
    }
}
