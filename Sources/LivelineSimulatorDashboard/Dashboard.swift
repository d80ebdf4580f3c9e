import Foundation
import LivelineCore
import LivelineDashboardSupport
import LivelineHTTPServer
import LivelineSimulator
import Synchronization

/// The live dashboard of a simulator's iPhones: one page on loopback over HTTP/1.1, JSON state,
/// the control routes and server-sent events that push each change as it happens
/// (docs/dashboard.md).
///
/// ```swift
/// let clock = LiveClock()
/// let simulator = try setup.makeSimulator(clock: clock)
/// let dashboard = try Dashboard.start(control: SimulatorControl(simulator: simulator))
/// print(dashboard.url)
/// ```
///
/// Module: LivelineSimulatorDashboard owns the simulated iPhones' live page: its routes, its cards
/// (drawn by LivelinePreview), its delivery log and its server-sent events. It imports LivelineCore,
/// LivelineUI, LivelinePreview, LivelineSimulator, LivelineHTTPServer and LivelineDashboardSupport
/// (what it shares with the service's page); it must never import the service (LivelineServiceDashboard
/// shows that), the browser, the store or the transport.
public final class Dashboard: Sendable {
    /// The simulator shown and what the page's controls call.
    public let control: SimulatorControl
    /// The page's address, `http://127.0.0.1:PORT/`.
    public var url: String { server.url + "/" }
    /// The URL to open: `url` with the access token (`?token=…`), which the page keeps in a cookie.
    public var accessURL: String { url + "?token=" + access.token }
    /// The access token, for tools: send it in `X-Liveline-Dashboard-Token`.
    public var token: String { access.token }
    /// The header that carries the token, for tools.
    public static let tokenHeader = DashboardAccess.headerName
    /// The port.
    public var port: Int { server.port }

    private let server: HTTPServer
    private let access: DashboardAccess
    private let hub: EventHub
    private let cards: DashboardCards
    private let log: DashboardLog
    private let feedTask: Task<Void, Never>

    private init(control: SimulatorControl, server: HTTPServer, access: DashboardAccess, hub: EventHub, cards: DashboardCards, log: DashboardLog, feedTask: Task<Void, Never>) {
        self.control = control
        self.server = server
        self.access = access
        self.hub = hub
        self.cards = cards
        self.log = log
        self.feedTask = feedTask
    }

    /// Starts serving the dashboard of `control.simulator`.
    /// - Parameters:
    ///   - host: a loopback address (`127.0.0.1`, `::1`): the page shows full tokens and drives the simulator.
    ///   - port: 0 picks a free one.
    ///   - heartbeat: how often an idle event stream gets a comment line (closed pages are noticed then).
    ///   - token: the access token (`DashboardAccess`); `nil` makes a random one (see `accessURL`).
    /// - Throws: `HTTPServerError` when the address cannot be bound or is not loopback.
    public static func start(control: SimulatorControl, host: String = "127.0.0.1", port: Int = 0,
                             heartbeat: Duration = .seconds(10), token: String? = nil) throws(HTTPServerError) -> Dashboard {
        guard host == "::1" || host.hasPrefix("127.") else {
            throw HTTPServerError(message: "the dashboard listens on loopback only (it shows full tokens and drives the simulator); got host \(host)")
        }
        let log = DashboardLog()
        let simulator = control.simulator
        log.learnTokens(devices: simulator.devices(), activities: simulator.activities())
        for record in simulator.log() { log.add(record, activities: []) }
        let cards = DashboardCards(control: control, log: log)
        let hub = EventHub(heartbeat: heartbeat)
        let changes = simulator.changes()
        let feedTask = Task.detached {
            for await change in changes { Self.publish(change, hub: hub, cards: cards, log: log) }
        }
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.connectionTimeout = .zero
        let access = DashboardAccess(host: host, token: token)
        let routes = DashboardRoutes(control: control, cards: cards, log: log, hub: hub, access: access)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(configuration) { request in await routes.respond(request) }
        } catch {
            feedTask.cancel()
            hub.close()
            throw error
        }
        return Dashboard(control: control, server: server, access: access, hub: hub, cards: cards, log: log, feedTask: feedTask)
    }

    /// Pages listening for events now.
    public var listeners: Int { hub.listeners }

    /// Ends the event streams and stops serving.
    public func stop() async {
        feedTask.cancel()
        hub.close()
        await server.stop(grace: .seconds(2))
    }

    /// Turns one simulator change into an event for the pages, with the card of the device it touched.
    static func publish(_ change: SimulatorChange, hub: EventHub, cards: DashboardCards, log: DashboardLog) {
        var data: JSONObject = [:]
        let event: String
        var devices: [String] = []
        switch change {
        case .push(let record, let activities):
            devices = log.add(record, activities: activities)
            switch record.verdict {
            case .accepted: event = "push-accepted"
            case .rejected: event = "push-rejected"
            case .dropped: event = "push-dropped"
            }
            data["entry"] = log.entries(deviceID: devices.first ?? "").last ?? log.unmatched.last ?? .null
        case .event(let e):
            devices = [e.deviceID]
            switch e.kind {
            case .pushToStartToken(_, let token):
                log.learn(token: token, deviceID: e.deviceID)
                event = "token-rotated"
            case .activityPushToken(let id, let token, let rotated):
                log.learn(token: token, deviceID: e.deviceID)
                event = rotated ? "token-rotated" : "token-issued"
                data["activityID"] = .string(id)
            case .activityState(let id, let state):
                event = state == .active ? "activity-started" : "activity-\(state.rawValue)"
                data["activityID"] = .string(id)
            case .contentUpdate(let id):
                event = "activity-updated"
                data["activityID"] = .string(id)
            }
        case .device(let id):
            devices = [id]
            let snapshot = cards.simulator.devices().filter { $0.id == id }
            log.learnTokens(devices: snapshot, activities: [])
            event = "device-added"
        case .interaction(let i):
            devices = [i.deviceID]
            event = "interaction"
            data["entry"] = i.json
        case .link(let l):
            devices = [l.deviceID]
            event = "link"
            data["entry"] = l.json
        case .clock(let date):
            event = "clock"
            data["time"] = .string(date.formatted(.iso8601))
            devices = cards.simulator.devices().map(\.id)
        }
        // "kind" goes last: a reader of the raw stream knows the message is whole when it sees it.
        if devices.isEmpty {
            data["unmatched"] = .array(log.unmatched.reversed())
            data["kind"] = .string(event)
            hub.send(event: event, data: JSONValue.object(data).jsonString)
            return
        }
        for id in devices {
            var one = data
            one["deviceID"] = .string(id)
            if let card = cards.card(id) { one["card"] = card }
            one["kind"] = .string(event)
            hub.send(event: event, data: JSONValue.object(one).jsonString)
        }
    }
}
