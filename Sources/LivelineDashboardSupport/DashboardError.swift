import LivelineCore
import LivelineHTTPServer

/// The dashboards' error answer: `{"error": {"code", "message"}}`, the message naming the problem.
package enum DashboardError {
    /// A JSON error answer with `status`.
    package static func response(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        .json(status, JSONValue.object(["error": ["code": .string(code), "message": .string(message)]]).serialized())
    }
}
