import Foundation
import LivelineCore
import LivelineCrypto
import LivelineService
import LivelineStore
import LivelineTesting
import Testing

/// Keys: bound to apps, listed without secrets, revoked, expired and rotated, on a real service.
@Suite("Service: API keys, tenancy and lifecycle")
struct ServiceKeyTests {
    static let other = "com.example.other"

    /// An ISO 8601 date with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    /// Registers a second app (same APNs key, another bundle) and returns an app key of it.
    static func otherApp(_ f: ServiceFixture) async throws -> APIClient {
        let app = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": .string(other), "teamID": .string(f.teamID), "keyID": .string(f.keyID),
                                                                    "key": .string(f.keyPEM), "environment": "sandbox"])
        #expect(app.status == 201, "\(app.json)")
        let key = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(other)])
        #expect(key.status == 201, "\(key.json)")
        return APIClient(baseURL: f.server.url, key: key.json["key"]?.stringValue)
    }

    @Test("an app key is made for one registered bundle (the only app when none is named) and cannot register a device of another app")
    func appKeysAreBound() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let only = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app"])
        #expect(only.status == 201)
        #expect(only.json["bundleID"]?.stringValue == ServiceFixture.bundle, "\(only.json)")
        let unknown = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": "com.example.nobody"])
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "unknown-app")
        let otherKey = try await Self.otherApp(f)
        let unbound = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app"])
        #expect(unbound.status == 400)
        #expect(unbound.json["error"]?["field"] == "bundleID", "\(unbound.json)")
        // The other app's key on the fixture's bundle: refused, nothing stored.
        let cross = try await otherKey.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
        #expect(cross.status == 403, "\(cross.json)")
        #expect(try await f.admin.call("GET", "/v1/devices/phone-1").status == 404)
        let own = try await otherKey.call("POST", "/v1/installations", json: ["bundleID": .string(Self.other), "iosVersion": "18.2"])
        #expect(own.status == 201, "\(own.json)")
        #expect(try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]).status == 201)
    }

    @Test("an admin key scoped to one app acts on that app only: other apps' devices, activities and channels look unknown")
    func scopedAdminKeys() async throws {
        let f = try await ServiceFixture(phones: [("phone-1", "18.2")])
        defer { Task { await f.stop() } }
        _ = try await Self.otherApp(f)
        try await f.register("phone-1")
        try await f.startAndRegister("flight-a", phones: ["phone-1"])
        let made = try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "apps": [.string(Self.other)], "name": "other's backend"])
        #expect(made.status == 201, "\(made.json)")
        #expect(made.json["apps"] == [.string(Self.other)])
        let scoped = APIClient(baseURL: f.server.url, key: made.json["key"]?.stringValue)

        let apps = try await scoped.call("GET", "/v1/apps")
        #expect(apps.json["apps"]?.arrayValue?.map { $0["bundleID"]?.stringValue } == [Self.other], "\(apps.json)")
        #expect(try await scoped.call("GET", "/v1/devices/phone-1").status == 404)
        #expect(try await scoped.call("GET", "/v1/activities/flight-a").status == 404)
        #expect(try await scoped.call("GET", "/v1/activities/flight-a/interactions").status == 404)
        let update = try await scoped.call("POST", "/v1/activities/flight-a/update", json: ["contentState": ServiceFixture.state(gate: "Z9")])
        #expect(update.status == 404, "\(update.json)")
        let start = try await scoped.call("POST", "/v1/activities/flight-b/start", json: f.startBody(devices: ["phone-1"]).merging(["bundleID": .string(ServiceFixture.bundle)]))
        #expect(start.status == 403, "\(start.json)")
        let end = try await scoped.call("POST", "/v1/activities/flight-a/end", json: [:])
        #expect(end.status == 404)
        let register = try await scoped.call("POST", "/v1/apps", json: ["bundleID": .string(ServiceFixture.bundle), "teamID": .string(f.teamID), "keyID": .string(f.keyID), "key": .string(f.keyPEM)])
        #expect(register.status == 403)
        // It cannot make a key wider than itself.
        #expect(try await scoped.call("POST", "/v1/keys", json: ["scope": "admin"]).status == 403)
        #expect(try await scoped.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(ServiceFixture.bundle)]).status == 403)
        #expect(try await scoped.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(Self.other)]).status == 201)
        // The gate on the phone is the one the real backend sent.
        let settled = try await f.settled("flight-a")
        #expect(settled.json["counts"]?["sent"] == 1, "\(settled.json)")
        #expect(f.deviceActivity("flight-a", on: "phone-1")?.contentState["gate"] == "B12")
        // Its keys listing shows only keys inside its app.
        let listed = try await scoped.call("GET", "/v1/keys")
        #expect(listed.json["keys"]?.arrayValue?.allSatisfy { $0["bundleID"]?.stringValue == Self.other || $0["apps"] == [.string(Self.other)] } == true, "\(listed.json)")
    }

    @Test("GET /v1/keys pages through every key and never shows a secret or a hash")
    func listing() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        var secrets: [String] = [f.admin.key ?? "", f.app.key ?? ""]
        for i in 0..<5 {
            let made = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(ServiceFixture.bundle), "name": .string("key \(i)")])
            secrets.append(made.json["key"]?.stringValue ?? "")
        }
        var seen: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let page = try await f.admin.call("GET", "/v1/keys?limit=3" + (after.map { "&after=\($0)" } ?? ""))
            #expect(page.status == 200, "\(page.json)")
            let text = page.json.jsonString
            for secret in secrets { #expect(!text.contains(secret)) }
            for secret in secrets { #expect(!text.contains(Digest.hex(Digest.sha256(Array(secret.utf8))))) }
            #expect(page.json["keys"]?.arrayValue?.allSatisfy { $0["key"] == nil && $0["hash"] == nil && $0["state"] == "active" } == true)
            seen += page.json["keys"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            after = page.json["next"]?.stringValue
            pages += 1
        } while after != nil && pages < 10
        #expect(seen.count == 7, "\(seen)")
        #expect(Set(seen).count == 7)
        #expect(pages == 3)
    }

    @Test("a revoked key is refused at once; a rotated key works for its grace, the new one at once; grace 0 ends the old one now")
    func revokeAndRotate() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let made = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(ServiceFixture.bundle)])
        let key = APIClient(baseURL: f.server.url, key: made.json["key"]?.stringValue)
        let device: JSONValue = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]
        #expect(try await key.call("POST", "/v1/installations", json: device).status == 201)  // cached now
        let revoked = try await f.admin.call("DELETE", "/v1/keys/\(made.json["id"]?.stringValue ?? "")")
        #expect(revoked.status == 200, "\(revoked.json)")
        #expect(revoked.json["state"] == "revoked")
        let refused = try await key.call("POST", "/v1/installations", json: device)
        #expect(refused.status == 401, "\(refused.json)")
        #expect(try await f.admin.call("DELETE", "/v1/keys/key_000000000000").status == 404)
        // The only admin key of every app cannot be revoked (nobody could make keys again).
        let adminID = try #require(try await f.admin.call("GET", "/v1/keys").json["keys"]?.arrayValue?.first { $0["scope"] == "admin" }?["id"]?.stringValue)
        let last = try await f.admin.call("DELETE", "/v1/keys/\(adminID)")
        #expect(last.status == 409, "\(last.json)")
        #expect(try await f.admin.call("GET", "/v1/apps").status == 200)

        let appID = try #require(try await f.admin.call("GET", "/v1/keys").json["keys"]?.arrayValue?.first { $0["scope"] == "app" && $0["state"] == "active" }?["id"]?.stringValue)
        let graceful = try await f.admin.call("POST", "/v1/keys/\(appID)/rotate", json: ["graceSeconds": 600])
        #expect(graceful.status == 201, "\(graceful.json)")
        #expect(graceful.json["bundleID"]?.stringValue == ServiceFixture.bundle)
        let successor = APIClient(baseURL: f.server.url, key: graceful.json["key"]?.stringValue)
        #expect(try await successor.call("POST", "/v1/installations", json: device).status == 201)
        #expect(try await f.app.call("POST", "/v1/installations", json: device).status == 201)  // the old one, within its grace
        let validUntil = try #require(graceful.json["previous"]?["validUntil"]?.stringValue.flatMap(Self.date))
        #expect(abs(validUntil.timeIntervalSinceNow - 600) < 30)

        let successorID = try #require(graceful.json["id"]?.stringValue)
        let abrupt = try await f.admin.call("POST", "/v1/keys/\(successorID)/rotate", json: ["graceSeconds": 0])
        #expect(abrupt.status == 201)
        #expect(try await successor.call("POST", "/v1/installations", json: device).status == 401)
        let third = APIClient(baseURL: f.server.url, key: abrupt.json["key"]?.stringValue)
        #expect(try await third.call("POST", "/v1/installations", json: device).status == 201)
    }

    @Test("a key made with expiresAt works until then and is refused after, cached or not; a past expiresAt is a 400")
    func expiry() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let past = try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "expiresAt": "2020-01-01T00:00:00Z"])
        #expect(past.status == 400)
        #expect(past.json["error"]?["field"] == "expiresAt")
        let soon = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.up))
        let made = try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "expiresAt": .string(ISO8601DateFormatter().string(from: soon))])
        #expect(made.status == 201, "\(made.json)")
        let key = APIClient(baseURL: f.server.url, key: made.json["key"]?.stringValue)
        let asked = Date()
        let first = try await key.call("GET", "/v1/apps").status
        // On a loaded machine the first call may already come after the expiry; it must then be refused.
        #expect(first == (Date() < soon ? 200 : 401) || (asked < soon && first == 200), "answered \(first) \(soon.timeIntervalSinceNow) s before the expiry")
        // Waits for the expiry itself (the signal here is the clock), then at most 10 s more; every
        // answer until the refusal is 200, and the refusal comes no earlier than expiresAt.
        var refusedAt: Date?
        try await until("the key to be refused once its expiresAt passed", within: .seconds(max(0, soon.timeIntervalSinceNow)) + .seconds(10), poll: .milliseconds(100)) {
            let status = try await key.call("GET", "/v1/apps").status
            #expect(status == 200 || status == 401, "answered \(status)")
            if status == 401 { refusedAt = Date() }
            return status == 401
        }
        #expect(try #require(refusedAt) >= soon, "refused before its expiresAt")
        let listed = try await f.admin.call("GET", "/v1/keys")
        #expect(listed.json["keys"]?.arrayValue?.first { $0["id"] == made.json["id"] }?["state"] == "expired")
    }

    @Test("an app key of the previous version (no bundle) still works, and its rotation binds the successor to the app given")
    func legacyAppKeyRotation() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let legacy = KeyAuthority.make(scope: .app, name: "from 1.0", now: Date())
        try f.server.store.write { try $0.insertKey(legacy.record) }
        let old = APIClient(baseURL: f.server.url, key: legacy.secret)
        _ = try await Self.otherApp(f)
        #expect(try await old.call("POST", "/v1/installations", json: ["bundleID": .string(Self.other), "iosVersion": "18.2"]).status == 201)
        let listed = try await f.admin.call("GET", "/v1/keys")
        #expect(listed.json["keys"]?.arrayValue?.first { $0["id"]?.stringValue == legacy.record.id }?["bundleID"] == nil)
        let ambiguous = try await f.admin.call("POST", "/v1/keys/\(legacy.record.id)/rotate", json: [:])
        #expect(ambiguous.status == 400, "\(ambiguous.json)")  // two apps: which one?
        let rotated = try await f.admin.call("POST", "/v1/keys/\(legacy.record.id)/rotate", json: ["bundleID": .string(ServiceFixture.bundle), "graceSeconds": 0])
        #expect(rotated.status == 201, "\(rotated.json)")
        #expect(rotated.json["bundleID"]?.stringValue == ServiceFixture.bundle)
        let successor = APIClient(baseURL: f.server.url, key: rotated.json["key"]?.stringValue)
        #expect(try await successor.call("POST", "/v1/installations", json: ["bundleID": .string(Self.other), "iosVersion": "18.2"]).status == 403)
        #expect(try await successor.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]).status == 201)
        #expect(try await old.call("POST", "/v1/installations", json: ["bundleID": .string(Self.other), "iosVersion": "18.2"]).status == 401)
    }

    @Test("with adminListen the admin routes answer only on the admin listener, the app routes only on the public one")
    func adminListener() async throws {
        let f = try await ServiceFixture { $0.adminListen = "127.0.0.1:0" }
        defer { Task { await f.stop() } }
        let adminURL = try #require(f.server.adminURL)
        #expect(adminURL != f.server.url)
        let adminOnPublic = APIClient(baseURL: f.server.url, key: f.admin.key)
        #expect(try await adminOnPublic.call("GET", "/v1/apps").status == 404)
        #expect(try await adminOnPublic.call("POST", "/v1/keys", json: ["scope": "admin"]).status == 404)
        #expect(try await f.admin.call("GET", "/v1/apps").status == 200)
        let appOnAdmin = APIClient(baseURL: adminURL, key: f.app.key)
        // The app key's one route is not served there at all; an installation route whose path also
        // has an admin method (GET /v1/devices/{id}) answers 405, naming it.
        let made = try await appOnAdmin.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
        #expect(made.status == 404, "\(made.json)")
        #expect(try await appOnAdmin.call("DELETE", "/v1/devices/phone-1").status == 405)
        #expect(try await f.admin.call("GET", "/v1/devices/phone-1").status == 404)  // nothing was registered
        #expect(try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]).status == 201)
        #expect(try await APIClient(baseURL: adminURL).call("GET", "/healthz").status == 200)
        #expect(try await APIClient(baseURL: f.server.url).call("GET", "/healthz").status == 200)
    }
}

extension JSONValue {
    /// This object with `members` added (replacing same-named ones).
    func merging(_ members: JSONObject) -> JSONValue {
        var o = objectValue ?? [:]
        for m in members { o[m.key] = m.value }
        return .object(o)
    }
}
