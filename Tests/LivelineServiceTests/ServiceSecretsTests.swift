import Foundation
import LivelineCore
import LivelineCrypto
import LivelineService
import LivelineStore
import LivelineTesting
import Synchronization
import Testing

/// Secrets at rest: the apps' `.p8` keys encrypted under the operator's KEK, the database file
/// readable by its owner only, and a missing or wrong KEK stopping the start with a clear error.
@Suite("Service: secrets at rest")
struct ServiceSecretsTests {
    /// The PEM's base64 lines, any of which in a file would leak the key.
    static func pemLines(_ pem: String) -> [String] {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count >= 20 }.map(String.init)
    }

    static func fileBytes(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test("with a KEK, a copy of the database files (and their -wal) holds no PEM, the files are 0600, and pushes still go out")
    func encryptedAtRest() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-kek", phones: ["phone-1"])  // the key decrypts and signs
        // The user-token secret too: with it, a copy of the database could sign user tokens and grants.
        let secret = try await TrustAttackTests.tokenSecret(f)
        let installation = try await TrustAttackTests.install(f)
        let userToken = BackendTokens.userToken(userID: "ana", installationID: installation.id, bundleID: ServiceFixture.bundle, secret: secret)
        let bound = try await installation.client.call("PUT", "/v1/devices/\(installation.id)", json: [
            "bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2", "userID": "ana", "userToken": .string(userToken)])
        #expect(bound.status == 200 && bound.json["userVerified"] == true, "the sealed secret still verifies: \(bound.json)")
        let db = f.configuration.database
        let copied = [db, db + "-wal"].map(Self.fileBytes).joined()
        #expect(copied.utf8.count > 4096)
        #expect(!copied.contains("PRIVATE KEY"))
        for line in Self.pemLines(f.keyPEM) { #expect(!copied.contains(line), "a line of the .p8 key is in the database file") }
        #expect(!copied.contains(secret), "the user-token secret is in the database file")
        for file in [db, db + "-wal", db + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(Self.mode(file) == 0o600, "\(file) has mode \(String(Self.mode(file) ?? 0, radix: 8))")
        }
    }

    @Test("restarting without the KEK, or with another, is refused at start naming what to provide")
    func wrongOrMissingKEK() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        await f.server.stop()
        var missing = f.configuration
        missing.kek = nil
        #expect {
            _ = try ServiceServer.start(missing) { _ in }
        } throws: { error in
            "\(error)".contains("--kek-file") && "\(error)".contains("LIVELINE_KEK") && "\(error)".contains("encrypted")
        }
        var wrong = f.configuration
        wrong.kek = SecretBox.generateKeyText()
        #expect {
            _ = try ServiceServer.start(wrong) { _ in }
        } throws: { error in
            "\(error)".contains("does not open the stored .p8 key of \(ServiceFixture.bundle)")
        }
        // The right one still works: nothing was lost.
        f.server = try ServiceServer.start(f.configuration) { _ in }
        let listed = try await APIClient(baseURL: f.server.url, key: f.admin.key).call("GET", "/v1/apps")
        #expect(listed.json["apps"]?.arrayValue?.count == 1)
    }

    @Test("a database of the previous version (plain .p8 keys) is encrypted on the first start with a KEK, and its app still sends")
    func plaintextIsMigrated() async throws {
        let f = try await ServiceFixture { $0.kek = nil }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        await f.server.stop()
        let before = try SQLiteStore(path: f.configuration.database)
        let plain = try before.write { try $0.app(bundleID: ServiceFixture.bundle)?.keyPEM }
        before.close()
        #expect(plain?.contains("PRIVATE KEY") == true)  // what the previous version stored

        let logs = Mutex<[String]>([])
        var withKEK = f.configuration
        let kekFile = f.directory + "/kek"
        try SecretBox.generateKeyText().write(toFile: kekFile, atomically: true, encoding: .utf8)
        withKEK.kekFile = kekFile
        f.server = try ServiceServer.start(withKEK) { line in logs.withLock { $0.append(line) } }
        #expect(logs.withLock { $0.contains { $0.contains("encrypted 1 stored .p8 keys") } }, "\(logs.withLock { $0 })")
        let admin = APIClient(baseURL: f.server.url, key: f.admin.key)
        let start = try await admin.call("POST", "/v1/activities/flight-mig/start", json: f.startBody(devices: ["phone-1"]))
        #expect(start.status == 202, "\(start.json)")
        let settled = try await admin.call("GET", "/v1/activities/flight-mig?wait=20")
        #expect(settled.json["counts"]?["sent"] == 1, "\(settled.json)")
        await f.server.stop()
        let after = try SQLiteStore(path: f.configuration.database)
        let stored = try after.write { try $0.app(bundleID: ServiceFixture.bundle)?.keyPEM } ?? ""
        after.close()
        #expect(SecretBox.isSealed(stored))
        #expect(!stored.contains("PRIVATE KEY"))
        // Nor do the files still hold the plain key the previous version wrote (secure_delete).
        let files = [f.configuration.database, f.configuration.database + "-wal"].map(Self.fileBytes).joined()
        for line in Self.pemLines(f.keyPEM) { #expect(!files.contains(line), "a line of the plain .p8 key is still in the database file") }
        f.server = try ServiceServer.start(withKEK) { _ in }
    }

    @Test("a new database file is created 0600; an existing 0644 one is narrowed to 0600 at start")
    func fileModes() async throws {
        let directory = NSTemporaryDirectory() + "liveline-modes-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = try SQLiteStore(path: directory + "/fresh.db")
        _ = try fresh.write { try $0.keyCount() }
        #expect(Self.mode(directory + "/fresh.db") == 0o600)
        #expect(Self.mode(directory + "/fresh.db-wal") == 0o600)
        fresh.close()
        let old = directory + "/old.db"
        #expect(FileManager.default.createFile(atPath: old, contents: nil, attributes: [.posixPermissions: 0o644]))
        #expect(Self.mode(old) == 0o644)
        let opened = try SQLiteStore(path: old)
        #expect(Self.mode(old) == 0o600)
        opened.close()
    }
}
