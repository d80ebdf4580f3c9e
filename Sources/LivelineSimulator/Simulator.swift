import Foundation
import LivelineCore
import Synchronization

/// A simulated APNs with simulated iPhones behind it, usable in-process (tests) or behind
/// `SimulatorServer` (HTTP/2 + TLS).
///
/// ```swift
/// let clock = VirtualClock()
/// let sim = Simulator(configuration: .init(apps: [.init(bundleID: "com.example.app", teamID: "TEAM123456")]), clock: clock)
/// let phone = sim.addDevice(name: "iPhone", osVersion: "18.2")
/// let app = try sim.install("com.example.app", on: phone, activityTypes: [.type(FlightAttributes.self)])
/// let response = sim.push(request, to: app.pushToStartTokens["FlightAttributes"]!)
/// clock.advance(by: 8 * 3600)
/// #expect(sim.activities().first?.state == .ended)
/// ```
///
/// Every method is thread-safe: the state sits behind one mutex.
///
/// LivelineSimulator owns the simulated APNs and iPhones: APNs' request rules
/// (`SimulatorState` and its extensions), ActivityKit's device rules, the inspection and control
/// APIs, and `SimulatorServer`, which serves them over LivelineHTTP2. Threads: none of its own
/// in-process (callers' threads take the mutex); behind `SimulatorServer`, the HTTP/2 server's
/// loop thread does the I/O and its worker thread runs every request (validation, delivery, the
/// state change), so the loop never waits for the mutex. It builds on LivelineCore,
/// LivelineCrypto, LivelineUI and LivelineHTTP2, and must never import LivelineAPNS,
/// LivelineService, LivelineStore or LivelineKit: it plays APNs for them, so it cannot share
/// their code or their mistakes.
public final class Simulator: Sendable {
    let state: Mutex<SimulatorState>
    /// The clock every rule reads (JWT age, stale dates, budgets, the 8- and 12-hour limits).
    public let clock: any SimulatorClock
    /// The environment this simulator plays (sandbox adds `apns-unique-id`).
    public let environment: APNSEnvironment

    /// A simulator with no devices yet; add them with `addDevice` and `install`.
    public init(configuration: SimulatorConfiguration = SimulatorConfiguration(), clock: any SimulatorClock = SystemClock()) {
        self.state = Mutex(SimulatorState(config: configuration))
        self.clock = clock
        self.environment = configuration.environment
    }

    // MARK: - Requests

    /// Answers one request as APNs would and applies it to the devices; `connection` carries what
    /// APNs remembers between requests on one connection.
    public func handle(_ request: SimulatorRequest, connection: inout ConnectionState) -> SimulatorResponse {
        let now = clock.now
        return state.withLock { s in
            defer {
                connection.lastRequestAt = now
                connection.requestCount += 1
            }
            if let last = connection.lastRequestAt, now.timeIntervalSince(last) > s.config.idleTimeout {
                let context = SimulatorState.PushContext(time: now, kind: "device", request: request, path: "-", apnsID: s.rng.uuidString())
                var r = s.finish(context, reason: .idleTimeout, timestamp: nil, idHeader: "apns-id", connection: &connection, actions: [], delay: 0)
                r.actions.append(.goAway(debugData: SimulatorState.reasonBody(.idleTimeout, timestamp: nil)))
                return r
            }
            let path = request.path
            if path.hasPrefix("/3/device") {
                return s.handleDevicePush(request, connection: &connection, now: now)
            } else if path.hasPrefix("/4/broadcasts/apps/") {
                return s.handleBroadcast(request, connection: &connection, now: now)
            } else if path.hasPrefix("/1/apps/") {
                return s.handleChannels(request, connection: &connection, now: now)
            }
            let context = SimulatorState.PushContext(time: now, kind: "device", request: request, path: path, apnsID: s.rng.uuidString())
            return s.finish(context, reason: .badPath, timestamp: nil, idHeader: "apns-id", connection: &connection, actions: [], delay: 0)
        }
    }

    /// A fresh connection as a client opens it: token authentication, one stream until the first valid push.
    public func newConnection(authentication: ConnectionState.Authentication = .token) -> ConnectionState {
        let initial = state.withLock { s in
            if case .token = authentication { return s.config.restrictedConcurrentStreams }
            return s.config.maxConcurrentStreams
        }
        return ConnectionState(authentication: authentication, initialMaxConcurrentStreams: initial)
    }

    /// Sends `request` to `token` on an authenticated in-process connection (no JWT needed).
    public func push(_ request: PushRequest, to token: String) -> SimulatorResponse {
        var connection = ConnectionState.trusted
        return handle(SimulatorRequest(path: "/3/device/" + token, headers: request.headers.map { .init($0.name, $0.value) }, body: request.serializedBody()), connection: &connection)
    }

    /// Broadcasts `request` on `channelID` of `bundleID` on an in-process connection.
    public func broadcast(_ request: PushRequest, bundleID: String, channelID: String) -> SimulatorResponse {
        var connection = ConnectionState.trusted
        var headers: [SimulatorRequest.Header] = [.init("apns-push-type", "liveactivity"), .init("apns-channel-id", channelID)]
        if let p = request.priority { headers.append(.init("apns-priority", String(p.rawValue))) }
        if let e = request.expiration { headers.append(.init("apns-expiration", e.headerValue)) }
        return handle(SimulatorRequest(path: "/4/broadcasts/apps/" + bundleID, headers: headers, body: request.serializedBody()), connection: &connection)
    }

    /// Creates a broadcast channel for `bundleID` (storage policy 0: no message stored, 1: most recent stored).
    ///
    /// - Throws: `SimulatorError` with APNs' reason when APNs would refuse.
    public func createChannel(bundleID: String, storagePolicy: Int = 0) throws(SimulatorError) -> String {
        var connection = ConnectionState.trusted
        let body = JSONValue.object(["message-storage-policy": .number(Double(storagePolicy)), "push-type": "LiveActivity"]).serialized()
        let r = handle(SimulatorRequest(path: "/1/apps/\(bundleID)/channels", body: body), connection: &connection)
        guard r.status == 201, let id = r.header("apns-channel-id") else {
            throw SimulatorError(.rejected, "creating a channel for \(bundleID) failed: \(r.status) \(r.reason ?? "")")
        }
        return id
    }

    // MARK: - Faults

    /// Adds a fault rule; rules fire in the order added.
    public func inject(_ rule: FaultRule) { state.withLock { $0.faults.add(rule) } }

    /// Removes every fault rule.
    public func clearFaults() { state.withLock { $0.faults.clear() } }

    /// How many times each rule has fired, in the order added.
    public var faultCounts: [Int] { state.withLock { $0.faults.fired } }
}

/// A simulator call that cannot be done: what was wrong and the value.
public struct SimulatorError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let unknownDevice = Code(rawValue: "unknown-device")
        public static let unknownApp = Code(rawValue: "unknown-app")
        public static let unknownActivity = Code(rawValue: "unknown-activity")
        public static let unsupported = Code(rawValue: "unsupported")
        public static let targetMaximumExceeded = Code(rawValue: "target-maximum-exceeded")
        public static let decodingFailed = Code(rawValue: "decoding-failed")
        public static let rejected = Code(rawValue: "rejected")
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
    }

    /// What kind of problem.
    public let code: Code
    /// What was wrong, with the value.
    public let message: String
    /// An error with its code and message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
