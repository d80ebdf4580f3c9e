import Foundation
import LivelineCore
import Testing

/// An `Idempotency-Key` on a request whose answer shows a secret once (a new installation, a new or
/// rotated key, a token secret the service made): the effect happens once, the replay leaves the
/// secret out, and the idempotency table never holds it.
@Suite("Idempotent replays never repeat or store a shown-once secret")
struct IdempotentSecretTests {
    /// Every file of the service's SQLite database (main, WAL) as one byte string.
    static func databaseBytes(_ f: ServiceFixture) -> [UInt8] {
        let base = f.directory + "/liveline.db"
        return [base, base + "-wal", base + "-shm"].flatMap { FileManager.default.contents(atPath: $0).map(Array.init) ?? [] }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard !n.isEmpty, haystack.count >= n.count else { return false }
        return (0...(haystack.count - n.count)).contains { i in haystack[i] == n[0] && Array(haystack[i..<(i + n.count)]) == n }
    }

    @Test("POST /v1/installations twice with one key: one installation, the secret in the first answer only, nowhere in the database")
    func installation() async throws {
        let f = try await ServiceFixture(phones: [])
        defer { Task { await f.stop() } }
        let body: JSONValue = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]
        let headers = ["Idempotency-Key": "install-\(UUID().uuidString)"]
        let first = try await f.app.call("POST", "/v1/installations", json: body, headers: headers)
        #expect(first.status == 201, "\(first.json)")
        let secret = try #require(first.json["secret"]?.stringValue)
        let again = try await f.app.call("POST", "/v1/installations", json: body, headers: headers)
        #expect(again.status == 201, "\(again.json)")
        #expect(again.json["installationID"] == first.json["installationID"], "one effect: \(again.json)")
        #expect(again.json["secret"] == nil, "the replay repeated the secret")
        #expect(again.json["replayNote"]?.stringValue?.contains("shown once") == true, "\(again.json)")
        #expect(!Self.contains(Self.databaseBytes(f), secret), "the installation secret is in the database files")
        // The first answer's secret works; nothing else was made.
        let me = try await APIClient(baseURL: f.server.url, key: secret).call("PUT", "/v1/devices/\(first.json["installationID"]!.stringValue!)",
                                                                              json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
        #expect(me.status == 201 || me.status == 200, "\(me.json)")
    }

    @Test("POST /v1/keys and PUT token-secret with one key twice: the key and the made secret are not repeated or stored")
    func keysAndTokenSecret() async throws {
        let f = try await ServiceFixture(phones: [])
        defer { Task { await f.stop() } }
        let keyHeaders = ["Idempotency-Key": "key-\(UUID().uuidString)"]
        let made = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(ServiceFixture.bundle)], headers: keyHeaders)
        #expect(made.status == 201, "\(made.json)")
        let key = try #require(made.json["key"]?.stringValue)
        let replay = try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": .string(ServiceFixture.bundle)], headers: keyHeaders)
        #expect(replay.json["id"] == made.json["id"] && replay.json["key"] == nil, "\(replay.json)")
        let secretHeaders = ["Idempotency-Key": "secret-\(UUID().uuidString)"]
        let set = try await f.admin.call("PUT", "/v1/apps/\(ServiceFixture.bundle)/token-secret", json: [:], headers: secretHeaders)
        #expect(set.status == 200, "\(set.json)")
        let tokenSecret = try #require(set.json["secret"]?.stringValue)
        let setAgain = try await f.admin.call("PUT", "/v1/apps/\(ServiceFixture.bundle)/token-secret", json: [:], headers: secretHeaders)
        #expect(setAgain.status == 200 && setAgain.json["secret"] == nil, "\(setAgain.json)")
        let bytes = Self.databaseBytes(f)
        #expect(!Self.contains(bytes, key), "the new API key is in the database files")
        #expect(!Self.contains(bytes, tokenSecret), "the made token secret is in the database files")
    }
}
