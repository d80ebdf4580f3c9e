import Foundation
import LivelineCrypto
@testable import LivelineService
import LivelineStore
import LivelineTesting
import Testing

@Suite("ClientRegistry: one APNs client per app, made once")
struct ClientRegistryTests {
    static func registry() throws -> ClientRegistry {
        var configuration = ServiceConfiguration()
        configuration.apnsHost = "127.0.0.1:9"  // never dialled: the test makes clients, it sends nothing
        return ClientRegistry(configuration: configuration, vault: try AppKeyVault(configuration))
    }

    static func app(_ key: P256PrivateKey, keyID: String = "KEY1234567") throws -> AppRecord {
        AppRecord(bundleID: "com.example.race", teamID: "TEAM123456", keyID: keyID, keyPEM: try key.pkcs8PEM(), environment: "sandbox", createdAt: Date())
    }

    /// The first calls of many threads at once, released together.
    static func concurrentFirstCalls(_ registry: ClientRegistry, _ app: AppRecord, threads: Int) -> [ObjectIdentifier] {
        let results = NSLock()
        nonisolated(unsafe) var ids: [ObjectIdentifier] = []
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                let client = try? registry.client(for: app)
                results.withLock { if let client { ids.append(ObjectIdentifier(client)) } }
                done.leave()
            }
        }
        for _ in 0..<threads { start.signal() }
        done.wait()
        return results.withLock { ids }
    }

    @Test("32 threads asking for a new app's client at once all get the one client, and only one is built")
    func singleFlight() throws {
        for round in 0..<5 {
            let registry = try Self.registry()
            let app = try Self.app(try P256PrivateKey.generate())
            let ids = Self.concurrentFirstCalls(registry, app, threads: 32)
            #expect(ids.count == 32)
            // Every caller holds the client that stays: none was shut down under a caller by a later one.
            #expect(Set(ids).count == 1, "round \(round): \(Set(ids).count) clients were built for one app; all but the last stored are shut down while their callers use them")
            #expect(registry.built == 1, "round \(round): \(registry.built) clients built")
        }
    }

    @Test("an app registered again with another key gets a new client; the same app keeps its client")
    func replacedOnNewCredentials() throws {
        let registry = try Self.registry()
        let first = try Self.app(try P256PrivateKey.generate())
        let a = try registry.client(for: first)
        #expect(try registry.client(for: first) === a)
        let second = try Self.app(try P256PrivateKey.generate(), keyID: "KEY7654321")
        let b = try registry.client(for: second)
        #expect(b !== a)
        #expect(try registry.client(for: second) === b)
        #expect(registry.built == 2)
    }
}

@Suite("Dispatcher: a push its client never sent spends no attempt")
struct DispatcherUnsentTests {
    @Test("pushes failing with a local shutdown go back to the queue with their attempt given back, never failed")
    func shutdownSpendsNoAttempt() async throws {
        let dir = NSTemporaryDirectory() + "liveline-unsent-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(path: dir + "/test.db")
        defer { store.close() }
        var configuration = ServiceConfiguration()
        configuration.apnsHost = "127.0.0.1:9"  // never dialled: the client is shut down before any push
        configuration.maxAttempts = 1  // one spent attempt would fail the row
        configuration.retryBase = .milliseconds(10)
        let app = try ClientRegistryTests.app(try P256PrivateKey.generate())
        let now = Date()
        try store.write { tx in
            try tx.upsertApp(app)
            _ = try tx.insertSend(SendRecord(activityID: "a1", event: "update", bundleID: app.bundleID, body: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8), createdAt: now),
                                  deliveries: [NewDelivery(deviceID: "d1", target: .token, token: String(repeating: "ab", count: 32), priority: 10, notBefore: now)], now: now)
        }
        let registry = ClientRegistry(configuration: configuration, vault: try AppKeyVault(configuration))
        // The app's client, shut down as a replaced one is while a pipeline still holds it. (For the
        // app as the store gives it back: the registry keeps a client per record, and a date read
        // back from the store need not equal the one written to the last bit.)
        let stored = try #require(try store.write { try $0.app(bundleID: app.bundleID) })
        let client = try registry.client(for: stored)
        await client.shutdown()
        let dispatcher = Dispatcher(store: store, configuration: configuration, clients: registry, metrics: Metrics(), log: { _ in })
        dispatcher.start()
        do {
            try await until("the row to come back from the shut-down client (or fail)") {
                let row = try store.write { try $0.deliveries(activityID: "a1", limit: 1) }.first
                return row?.state == .failed || (row?.state == .retrying && row?.reason?.hasPrefix("shutdown") == true)
            }
        } catch {
            await dispatcher.stop()
            throw error
        }
        await dispatcher.stop()
        #expect(registry.built == 1, "the dispatcher made another client instead of using the shut-down one")
        let row = try #require(try store.write { try $0.deliveries(activityID: "a1", limit: 1) }.first)
        #expect(row.state == .retrying, "a push the client never sent was \(row.state): \(row.reason ?? "")")
        #expect(row.attempts == 0, "the local shutdown spent \(row.attempts) attempt(s)")
        #expect(row.reason?.hasPrefix("shutdown") == true, "\(row.reason ?? "no reason")")
    }
}
