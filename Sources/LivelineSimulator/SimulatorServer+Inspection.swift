import Foundation
import LivelineCore
import LivelineHTTP2

/// The inspection API on the network (`GET /simulator/v1/...`), behind an inspection token when
/// the server was started with one.
extension SimulatorServer {
    /// A fresh inspection token: 32 random bytes from the system's generator, as 64 hex characters.
    public static func makeInspectionToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Answers an inspection request: 401 without the right bearer token (when `token` is set),
    /// 404 for an unknown route, else 200 with the JSON.
    static func respondToInspection(_ request: HTTP2ServerRequest, responder: HTTP2ServerResponder, simulator: Simulator, token: String?) {
        func error(_ status: Int, _ message: String, _ extra: [String: String] = [:]) {
            var headers = ["content-type": "application/json"]
            for (name, value) in extra { headers[name] = value }
            responder.respond(status: status, headers: HTTP2Headers(headers.map { (name: $0.key, value: $0.value) }),
                              body: JSONValue.object(["error": .string(message)]).serialized())
        }
        if let token, !Self.authorizes(request.headers["authorization"], token: token) {
            error(401, "the inspection API of a simulator listening beyond loopback needs 'authorization: Bearer <inspection token>'; the token was printed at start and is in the state directory's simulator.json",
                  ["www-authenticate": "Bearer"])
            return
        }
        guard request.method == "GET", let json = simulator.inspection(path: request.path) else {
            error(404, "no inspection route \(request.method) \(request.path); try GET /simulator/v1/status, devices, activities or log")
            return
        }
        responder.respond(status: 200, headers: ["content-type": "application/json"], body: Array(json.prettyPrinted().utf8))
    }

    /// Whether `header` is `Bearer <token>` (scheme case-insensitive), compared in constant time.
    static func authorizes(_ header: String?, token: String) -> Bool {
        guard let header else { return false }
        let utf8 = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard utf8.count == scheme.count + token.utf8.count else { return false }
        var difference: UInt8 = 0
        for (i, c) in scheme.enumerated() { difference |= (utf8[i] | 0x20) ^ c }
        for (i, c) in token.utf8.enumerated() { difference |= utf8[scheme.count + i] ^ c }
        return difference == 0
    }
}
