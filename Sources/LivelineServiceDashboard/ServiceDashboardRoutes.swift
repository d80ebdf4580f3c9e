import Foundation
import LivelineCore
import LivelineDashboardSupport
import LivelineHTTPServer
import LivelinePreview

/// The service page's routes, all read-only: the page and its two assets, `GET /api/activities`,
/// `GET /api/activities/{id}` and `GET /api/events` (server-sent events).
struct ServiceDashboardRoutes: Sendable {
    let activities: ServiceActivities
    let hub: EventHub
    let simulatorDashboard: URL?
    let access: DashboardAccess

    /// Every answer, with the security headers; a request without the exact host or the access token is refused.
    func respond(_ request: HTTPRequest) -> HTTPResponse {
        if let refused = access.refusal(request) { return access.secured(refused, request) }
        return access.secured(route(request), request)
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return DashboardError.response(405, "read-only", "the service's dashboard is read-only; \(request.method) is not allowed (the API is on the service's own port)")
        }
        let path = request.path
        do {
            switch path {
            case "/", "/index.html":
                return .text(200, ServiceDashboardPage.html, contentType: "text/html; charset=utf-8")
            case "/dashboard.css":
                return .text(200, ServiceDashboardPage.css + "\n" + ActivityPreview.stylesheet, contentType: "text/css; charset=utf-8")
            case "/dashboard.js":
                return .text(200, ServiceDashboardPage.script, contentType: "text/javascript; charset=utf-8")
            case "/api/activities":
                let state: JSONValue = [
                    "simulatorDashboard": simulatorDashboard.map { .string($0.absoluteString) } ?? .null,
                    "activities": .array(try activities.all()),
                ]
                return .json(200, state.serialized())
            case "/api/events":
                return .eventStream(hub.open())
            default:
                break
            }
            if path.hasPrefix("/api/activities/") {
                let id = String(path.dropFirst("/api/activities/".count))
                guard (1...200).contains(id.utf8.count) else { return DashboardError.response(400, "invalid-path", "an activity id is 1 to 200 characters, got \(id.utf8.count)") }
                guard let overview = try activities.one(id) else { return DashboardError.response(404, "unknown-activity", "the service knows no activity \"\(id)\"") }
                return .json(200, overview.serialized())
            }
        } catch {
            return DashboardError.response(503, "store-unavailable", "cannot read the service's database: \(error)")
        }
        return DashboardError.response(404, "not-found", "no route GET \(path); the page is at /, the API is described in docs/dashboard.md")
    }
}
