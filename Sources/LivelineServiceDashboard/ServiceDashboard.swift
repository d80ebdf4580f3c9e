import Foundation
import LivelineCore
import LivelineDashboardSupport
import LivelineHTTPServer
import LivelineService
import Synchronization

/// The live page of a service's logical activities (`liveline serve --dashboard`): each activity
/// with its update tokens (8-character prefixes) and each delivery's state, pushed to the page over
/// server-sent events when the service's outbox or registry changes (docs/dashboard.md, "The
/// service's page"). Read-only; it needs no API key, so it listens on loopback only, answers only
/// to its exact host names and to its access token (`accessURL`), see `DashboardAccess`.
///
/// ```swift
/// let server = try ServiceServer.start(configuration) { print($0) }
/// let dashboard = try ServiceDashboard.start(service: server.service)
/// print(dashboard.url)
/// ```
///
/// Module: LivelineServiceDashboard owns the service's live page: its routes, its cards, the picture
/// of each send (drawn by LivelinePreview) and its server-sent events. It imports LivelineCore,
/// LivelinePreview, LivelineService, LivelineHTTPServer and LivelineDashboardSupport; it must never
/// import the simulator (LivelineSimulatorDashboard shows that), the browser, the store or the transport.
public final class ServiceDashboard: Sendable {
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
    private let feedTask: Task<Void, Never>

    private init(server: HTTPServer, access: DashboardAccess, hub: EventHub, feedTask: Task<Void, Never>) {
        self.server = server
        self.access = access
        self.hub = hub
        self.feedTask = feedTask
    }

    /// Starts serving the page of `service`'s activities.
    /// - Parameters:
    ///   - host: a loopback address (`127.0.0.1`, `::1`).
    ///   - port: 0 picks a free one.
    ///   - simulatorDashboard: the simulator's dashboard the service sends to, shown as a link.
    ///   - heartbeat: how often an idle event stream gets a comment line (closed pages are noticed then).
    ///   - token: the access token (`DashboardAccess`); `nil` makes a random one (see `accessURL`).
    /// - Throws: `HTTPServerError` when the address cannot be bound or is not loopback.
    public static func start(service: Service, host: String = "127.0.0.1", port: Int = 0, simulatorDashboard: URL? = nil,
                             heartbeat: Duration = .seconds(10), token: String? = nil) throws(HTTPServerError) -> ServiceDashboard {
        guard host == "::1" || host.hasPrefix("127.") else {
            throw HTTPServerError(message: "the service's dashboard listens on loopback only (it shows activities without an API key); got host \(host)")
        }
        let activities: ServiceActivities
        do { activities = try ServiceActivities(service: service) } catch {
            throw HTTPServerError(message: "the service's dashboard cannot read the service's activities: \(error)")
        }
        let hub = EventHub(heartbeat: heartbeat)
        let changes = service.changes()
        let feedTask = Task.detached {
            for await change in changes { activities.publish(change, to: hub) }
        }
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.connectionTimeout = .zero
        let access = DashboardAccess(host: host, token: token)
        let routes = ServiceDashboardRoutes(activities: activities, hub: hub, simulatorDashboard: simulatorDashboard, access: access)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(configuration) { request in routes.respond(request) }
        } catch {
            feedTask.cancel()
            hub.close()
            throw error
        }
        return ServiceDashboard(server: server, access: access, hub: hub, feedTask: feedTask)
    }

    /// Pages listening for events now.
    public var listeners: Int { hub.listeners }

    /// Ends the event streams and stops serving.
    public func stop() async {
        feedTask.cancel()
        hub.close()
        await server.stop(grace: .seconds(2))
    }
}
