import Foundation
import LivelineStore
import Synchronization

/// Counters and a histogram, rendered as Prometheus text on `/metrics`.
final class Metrics: Sendable {
    private struct State {
        var requests: [String: Int] = [:]          // "route|status"
        var pushes: [String: Int] = [:]            // "result|reason"
        var latencyBuckets = [Int](repeating: 0, count: Metrics.bounds.count)
        var latencyCount = 0
        var latencySum = 0.0
    }
    private let state = Mutex(State())

    /// Upper bounds of the send-latency histogram, in seconds.
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    func request(route: String, status: Int) {
        state.withLock { $0.requests["\(route)|\(status)", default: 0] += 1 }
    }

    func push(result: String, reason: String?, latency: Double?) {
        state.withLock { s in
            s.pushes["\(result)|\(reason ?? "")", default: 0] += 1
            if let latency {
                s.latencyCount += 1
                s.latencySum += latency
                for (i, b) in Self.bounds.enumerated() where latency <= b { s.latencyBuckets[i] += 1 }
            }
        }
    }

    func render(outbox: [DeliveryState: Int], tokens: Int) -> String {
        let s = state.withLock { $0 }
        var out = "# HELP liveline_http_requests_total API requests by route and status.\n# TYPE liveline_http_requests_total counter\n"
        for (key, n) in s.requests.sorted(by: { $0.key < $1.key }) {
            let p = key.split(separator: "|", omittingEmptySubsequences: false)
            out += "liveline_http_requests_total{route=\"\(Self.escape(String(p[0])))\",status=\"\(p[1])\"} \(n)\n"
        }
        out += "# HELP liveline_pushes_total Push attempts by result and APNs reason.\n# TYPE liveline_pushes_total counter\n"
        for (key, n) in s.pushes.sorted(by: { $0.key < $1.key }) {
            let p = key.split(separator: "|", omittingEmptySubsequences: false)
            out += "liveline_pushes_total{result=\"\(p[0])\",reason=\"\(Self.escape(String(p[1])))\"} \(n)\n"
        }
        out += "# HELP liveline_outbox_rows Outbox rows by state.\n# TYPE liveline_outbox_rows gauge\n"
        for state in DeliveryState.allCases { out += "liveline_outbox_rows{state=\"\(state.rawValue)\"} \(outbox[state] ?? 0)\n" }
        let depth = (outbox[.queued] ?? 0) + (outbox[.retrying] ?? 0) + (outbox[.sending] ?? 0)
        out += "# HELP liveline_outbox_depth Rows not yet final.\n# TYPE liveline_outbox_depth gauge\nliveline_outbox_depth \(depth)\n"
        out += "# HELP liveline_registered_tokens Update and push-to-start tokens held.\n# TYPE liveline_registered_tokens gauge\nliveline_registered_tokens \(tokens)\n"
        out += "# HELP liveline_send_latency_seconds Time from claiming a row to its APNs verdict.\n# TYPE liveline_send_latency_seconds histogram\n"
        for (i, b) in Self.bounds.enumerated() { out += "liveline_send_latency_seconds_bucket{le=\"\(b)\"} \(s.latencyBuckets[i])\n" }
        out += "liveline_send_latency_seconds_bucket{le=\"+Inf\"} \(s.latencyCount)\n"
        out += "liveline_send_latency_seconds_sum \(s.latencySum)\nliveline_send_latency_seconds_count \(s.latencyCount)\n"
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
