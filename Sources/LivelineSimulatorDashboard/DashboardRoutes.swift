import Foundation
import LivelineCore
import LivelineDashboardSupport
import LivelineHTTPServer
import LivelineSimulator

/// The dashboard's HTTP routes: the page and its two assets, `GET /api/state`,
/// `GET /api/devices/{id}`, `GET /api/events` (server-sent events), the simulator's control routes
/// (`POST /simulator/v1/...`) and its inspection routes (`GET /simulator/v1/status|devices|activities|log`).
struct DashboardRoutes: Sendable {
    let control: SimulatorControl
    let cards: DashboardCards
    let log: DashboardLog
    let hub: EventHub
    let access: DashboardAccess

    /// Every answer, with the security headers; a request without the exact host or the access token is refused.
    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        if let refused = access.refusal(request) { return access.secured(refused, request) }
        return access.secured(await route(request), request)
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        // A page elsewhere must not drive the simulator: the exact host and the token (`DashboardAccess`),
        // and JSON bodies only (a cross-site form cannot send them without a preflight).
        if request.method == "POST", request.header("content-type")?.lowercased().hasPrefix("application/json") != true {
            return Self.error(415, "json-only", "POST bodies must be sent with content-type: application/json")
        }
        let path = request.path
        switch (request.method, path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return .text(200, DashboardPage.html, contentType: "text/html; charset=utf-8")
        case ("GET", "/dashboard.css"):
            return .text(200, DashboardPage.css + "\n" + DeviceRendering.stylesheet, contentType: "text/css; charset=utf-8")
        case ("GET", "/dashboard.js"):
            return .text(200, DashboardPage.script, contentType: "text/javascript; charset=utf-8")
        case ("GET", "/api/state"):
            let state: JSONValue = [
                "time": .string(control.simulator.clock.now.formatted(.iso8601)),
                "forwarding": control.forwarding.map { .string($0.baseURL.absoluteString) } ?? .null,
                "devices": .array(cards.all()),
                "unmatched": .array(log.unmatched.reversed()),
            ]
            return .json(200, state.serialized())
        case ("GET", "/api/events"):
            return .eventStream(hub.open())
        default:
            break
        }
        if request.method == "GET", path.hasPrefix("/api/devices/") {
            let id = String(path.dropFirst("/api/devices/".count))
            guard let card = cards.card(id) else { return Self.error(404, "unknown-device", "no device \"\(id)\"") }
            return .json(200, card.serialized())
        }
        if path.hasPrefix("/simulator/v1/") {
            if let answer = await control.respond(method: request.method, path: path, body: request.body) {
                return .json(answer.status, answer.json.serialized())
            }
            var full = path
            if let limit = request.queryValue("limit") { full += "?limit=\(limit)" }
            if request.method == "GET", let json = control.simulator.inspection(path: full) {
                return .json(200, json.serialized())
            }
        }
        return Self.error(404, "not-found", "no route \(request.method) \(path); the page is at /, the API is described in docs/dashboard.md")
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        DashboardError.response(status, code, message)
    }
}
