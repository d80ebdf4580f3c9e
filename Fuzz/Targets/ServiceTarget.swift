import Foundation
import LivelineCore
import LivelineCrypto
import LivelineHTTPServer
import LivelineService
import LivelineStore
import Synchronization

/// One service for the whole run on an SQLite file in a temporary folder, without workers (sends
/// stay in the outbox) and with APNs pointed at a closed port; an admin key made at start and an app
/// key made on first use (with the app they push for) stand in for `$ADMIN` and `$APP`, and an
/// installation the app key made for `$INST` (its credential) and `$DEV` (its id, the device id).
final class ServiceFuzzFixture: Sendable {
    static let shared = ServiceFuzzFixture()

    let service: Service
    let admin: String
    let appKey = Mutex<String?>(nil)
    let installation = Mutex<(secret: String, id: String)?>(nil)

    init() {
        let directory = NSTemporaryDirectory() + "liveline-fuzz-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = ServiceConfiguration()
        configuration.database = directory + "/liveline.db"
        configuration.apnsHost = "127.0.0.1:9"
        configuration.rateLimit = 1e9
        configuration.rateBurst = 1e9
        let store = try! SQLiteStore(path: configuration.database)
        service = try! Service(store: store, configuration: configuration) { _ in }
        admin = try! service.bootstrapAdminKey()!
    }

    /// `$ADMIN` and `$APP`. On first use, through the API: the flights app with a `.p8` key made
    /// now (held only in the temporary database), and the app key.
    func placeholders() async -> [(String, String)] {
        if let app = appKey.withLock({ $0 }), let inst = installation.withLock({ $0 }) {
            return [("$ADMIN", admin), ("$APP", app), ("$INST", inst.secret), ("$DEV", inst.id)]
        }
        let pem = try! P256PrivateKey.generate().pkcs8PEM()
        let registration: JSONValue = ["bundleID": "com.example.flights", "teamID": "TEAM000001", "keyID": "KEY0000001", "key": .string(pem), "environment": "sandbox"]
        _ = await service.handle(HTTPRequest(method: "POST", path: "/v1/apps", headers: [("authorization", "Bearer " + admin)], body: registration.serialized()))
        let made = await service.handle(HTTPRequest(method: "POST", path: "/v1/keys", headers: [("authorization", "Bearer " + admin)], body: Array(#"{"scope":"app"}"#.utf8)))
        let app = (try? JSONValue.parse(made.body))?["key"]?.stringValue ?? "-"
        let created = await service.handle(HTTPRequest(method: "POST", path: "/v1/installations", headers: [("authorization", "Bearer " + app)],
                                                       body: Array(#"{"bundleID":"com.example.flights","iosVersion":"18.2"}"#.utf8)))
        let json = try? JSONValue.parse(created.body)
        let inst = (json?["secret"]?.stringValue ?? "-", json?["installationID"]?.stringValue ?? "-")
        appKey.withLock { $0 = app }
        installation.withLock { $0 = inst }
        return [("$ADMIN", admin), ("$APP", app), ("$INST", inst.0), ("$DEV", inst.1)]
    }

    /// The service's answer to one input in the corpus's request form.
    func answer(_ bytes: [UInt8]) async -> HTTPResponse {
        let parsed = FuzzRequest(bytes, replacing: await placeholders())
        var path = parsed.path
        var query: [(name: String, value: String)] = []
        if let mark = path.firstIndex(of: "?") {
            for pair in path[path.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                // `wait` makes a GET sleep until pushes are final: time, not coverage.
                if parts[0] != "wait" { query.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : "")) }
            }
            path = String(path[..<mark])
        }
        let request = HTTPRequest(method: parsed.method, path: path, query: query, headers: parsed.headers, body: parsed.body)
        return await service.handle(request)
    }
}

extension FuzzTarget {
    /// `Service.handle(_:)`: any method, path, query, headers and body. The service must answer
    /// every request with a status and, for an error, a JSON body whose `error.message` is not
    /// empty; a 500 (an error the service did not expect) is a finding.
    public static let service = FuzzTarget(name: "service") { bytes in
        let response = await ServiceFuzzFixture.shared.answer(bytes)
        guard (100..<600).contains(response.status) else { return "Service.handle answered status \(response.status)" }
        if response.status == 500 { return "Service.handle answered 500: \(String(decoding: response.body.prefix(300), as: UTF8.self))" }
        if response.status >= 400 {
            let message = (try? JSONValue.parse(response.body))?["error"]?["message"]?.stringValue ?? ""
            if message.isEmpty { return "Service.handle answered \(response.status) without error.message: \(String(decoding: response.body.prefix(300), as: UTF8.self))" }
        }
        return nil
    }
}
