import Foundation
import LivelineCore
import LivelineKit
import LivelineSimulator
import Synchronization

/// ActivityKit as one app on one simulated iPhone sees it, for `LiveActivityCoordinator`: the
/// push-to-start tokens, the activities with their tokens and states, and the streams of changes.
///
/// The simulator is looked at, not hooked: `apply(devices:activities:)` takes its inspection JSON
/// (`Simulator.devicesJSON()` / `activitiesJSON()` in process, or `GET /simulator/v1/devices` and
/// `/activities` over HTTP), compares it with the last look and yields what changed on the streams
/// the app observes. It returns how many elements it yielded, so a caller can wait for the
/// coordinator to have handled them (`waitForEvents`) without sleeping.
public final class SimulatedActivityKit: Sendable {
    public let deviceID: String
    public let bundleID: String
    private let shared = SharedLook()
    private let kinds = Mutex<[String: SimulatedKind]>([:])
    private let authorizationInfo = Mutex<SimulatedAuthorization?>(nil)

    public init(deviceID: String, bundleID: String) {
        self.deviceID = deviceID
        self.bundleID = bundleID
    }

    /// `Activity<A>`'s static side for one attributes type (one instance per type).
    public func kind(_ attributesType: String) -> any LiveActivityKind {
        kinds.withLock { k in
            if let existing = k[attributesType] { return existing }
            let made = SimulatedKind(attributesType: attributesType, shared: shared)
            k[attributesType] = made
            return made
        }
    }

    /// `ActivityAuthorizationInfo` of the app.
    public var authorization: any LiveActivityAuthorization {
        authorizationInfo.withLock { a in
            if let existing = a { return existing }
            let made = SimulatedAuthorization(shared: shared)
            a = made
            return made
        }
    }

    /// Takes a new look at the simulator; yields the differences. Returns the number of elements
    /// yielded on streams the app observes.
    @discardableResult
    public func apply(devices: JSONValue, activities: JSONValue) -> Int {
        let app = devices.arrayValue?.first { $0["id"]?.stringValue == deviceID }?["apps"]?.arrayValue?.first { $0["bundleID"]?.stringValue == bundleID }
        var tokens: [String: String] = [:]
        for member in app?["pushToStartTokens"]?.objectValue ?? [:] { if let t = member.value.stringValue { tokens[member.key] = t } }
        let frequent = app?["frequentUpdates"]?.boolValue ?? false
        let mine = (activities.arrayValue ?? []).filter { $0["deviceID"]?.stringValue == deviceID && $0["bundleID"]?.stringValue == bundleID }
        let kinds = self.kinds.withLock { $0 }
        let authorization = authorizationInfo.withLock { $0 }

        var actions: [() -> Int] = []
        shared.state.withLock { w in
            for (type, token) in tokens where w.pushToStartTokens[type] != token {
                w.pushToStartTokens[type] = token
                if let k = kinds[type], let data = Data(hex: token) { actions.append { k.yieldToken(data) ? 1 : 0 } }
            }
            if frequent != w.frequentUpdates {
                w.frequentUpdates = frequent
                if let a = authorization { actions.append { a.yield(frequent) ? 1 : 0 } }
            }
            for json in mine {
                guard let id = json["id"]?.stringValue else { continue }
                let token = json["pushToken"]?.stringValue.flatMap { Data(hex: $0) }
                let state = LiveActivityState(rawValue: json["state"]?.stringValue ?? "") ?? .active
                let content = json["contentState"] ?? .null
                let failures = (Int(exactly: json["decodeFailures"]?.numberValue ?? 0) ?? 0, json["lastDecodeFailure"]?.stringValue ?? "")
                if let existing = w.activities[id] {
                    actions.append { existing.update(token: token, state: state, content: content) + existing.update(decodeFailures: failures.0, last: failures.1) }
                } else {
                    let type = json["attributesType"]?.stringValue ?? ""
                    let activity = SimulatedActivity(id: id, attributesType: type, attributes: json["attributes"] ?? .null,
                                                     token: token, state: state, content: content)
                    _ = activity.update(decodeFailures: failures.0, last: failures.1)
                    w.activities[id] = activity
                    w.order.append(id)
                    if let k = kinds[type] { actions.append { k.yieldActivity(activity) ? 1 : 0 } }
                }
            }
        }
        // Yield outside the lock: a consumer may read the current values at once.
        return actions.reduce(0) { $0 + $1() }
    }

    /// Takes a look at an in-process simulator.
    @discardableResult
    public func apply(_ simulator: Simulator) -> Int {
        apply(devices: simulator.devicesJSON(), activities: simulator.activitiesJSON())
    }
}

/// The last look at the simulator, shared by the app's kinds (they never point back at their owner).
final class SharedLook: Sendable {
    struct State {
        var pushToStartTokens: [String: String] = [:]
        var activities: [String: SimulatedActivity] = [:]
        var order: [String] = []
        var frequentUpdates = false
    }
    let state = Mutex(State())

    func pushToStartToken(_ type: String) -> Data? {
        state.withLock { $0.pushToStartTokens[type].flatMap { Data(hex: $0) } }
    }

    func activities(_ type: String) -> [any LiveActivity] {
        state.withLock { w in
            w.order.compactMap { w.activities[$0] }.filter { $0.attributesType == type && !$0.activityState.isOver }
        }
    }

    var frequentUpdates: Bool { state.withLock { $0.frequentUpdates } }
}

/// A stream whose elements count only once somebody took it (the coordinator observes it).
final class ObservedStream<Element: Sendable>: Sendable {
    private let pair = AsyncStream<Element>.makeStream()
    private let taken = Mutex(false)

    var stream: AsyncStream<Element> {
        taken.withLock { $0 = true }
        return pair.stream
    }

    /// Yields; true when the stream is observed.
    func yield(_ element: Element) -> Bool {
        guard taken.withLock({ $0 }) else { return false }
        pair.continuation.yield(element)
        return true
    }
}

final class SimulatedKind: LiveActivityKind {
    let attributesType: String
    private let shared: SharedLook
    private let tokens = ObservedStream<Data>()
    private let updates = ObservedStream<any LiveActivity>()

    init(attributesType: String, shared: SharedLook) {
        self.attributesType = attributesType
        self.shared = shared
    }

    var pushToStartToken: Data? { shared.pushToStartToken(attributesType) }
    var pushToStartTokenUpdates: AsyncStream<Data> { tokens.stream }
    var activities: [any LiveActivity] { shared.activities(attributesType) }
    var activityUpdates: AsyncStream<any LiveActivity> { updates.stream }

    func yieldToken(_ token: Data) -> Bool { tokens.yield(token) }
    func yieldActivity(_ activity: SimulatedActivity) -> Bool { updates.yield(activity) }
}

final class SimulatedAuthorization: LiveActivityAuthorization {
    private let shared: SharedLook
    private let updates = ObservedStream<Bool>()
    init(shared: SharedLook) { self.shared = shared }
    var frequentPushesEnabled: Bool { shared.frequentUpdates }
    var frequentPushEnablementUpdates: AsyncStream<Bool> { updates.stream }
    func yield(_ enabled: Bool) -> Bool { updates.yield(enabled) }
}

/// One simulated activity, as `Activity<A>` shows it to the app.
final class SimulatedActivity: LiveActivity {
    let id: String
    let attributesType: String
    let attributes: JSONValue
    private let current: Mutex<(token: Data?, state: LiveActivityState, content: JSONValue)>
    private let tokens = ObservedStream<Data>()
    private let states = ObservedStream<LiveActivityState>()
    private let contents = ObservedStream<JSONValue>()
    private let failures = ObservedStream<String>()
    private let failureCount = Mutex(0)

    init(id: String, attributesType: String, attributes: JSONValue, token: Data?, state: LiveActivityState, content: JSONValue) {
        self.id = id
        self.attributesType = attributesType
        self.attributes = attributes
        current = Mutex((token, state, content))
    }

    var pushToken: Data? { current.withLock { $0.token } }
    var activityState: LiveActivityState { current.withLock { $0.state } }
    var pushTokenUpdates: AsyncStream<Data> { tokens.stream }
    var activityStateUpdates: AsyncStream<LiveActivityState> { states.stream }
    var contentUpdates: AsyncStream<JSONValue> { contents.stream }
    /// The simulator counts the content states the activity's type failed to decode; each new one
    /// yields the decoder's last message (what a widget's own decoder would hand the app).
    var contentDecodeFailures: AsyncStream<String> { failures.stream }

    /// Applies the simulator's decode-failure count; returns 1 when a new failure was yielded.
    func update(decodeFailures count: Int, last: String) -> Int {
        let grew = failureCount.withLock { c -> Bool in
            defer { c = max(c, count) }
            return count > c
        }
        return grew && failures.yield(last) ? 1 : 0
    }

    /// Applies a new look; returns how many elements went to observed streams (one at most per stream).
    func update(token: Data?, state: LiveActivityState, content: JSONValue) -> Int {
        let (tokenChanged, stateChanged, contentChanged) = current.withLock { c -> (Bool, Bool, Bool) in
            let t = token != nil && token != c.token, s = state != c.state, x = content != c.content
            if t { c.token = token }
            c.state = state
            c.content = content
            return (t, s, x)
        }
        var yielded = 0
        if tokenChanged, let token, tokens.yield(token) { yielded += 1 }
        if stateChanged, states.yield(state) { yielded += 1 }
        if contentChanged, contents.yield(content) { yielded += 1 }
        return yielded
    }
}

extension Data {
    /// Bytes from hex; nil when it is not hex.
    init?(hex: String) {
        guard hex.utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | v); high = nil } else { high = v }
        }
        self.init(bytes)
    }
}
