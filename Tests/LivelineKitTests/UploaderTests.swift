import Foundation
import LivelineCore
import LivelineKit
import Synchronization
import Testing

@Suite("LivelineKit: the uploader's rules and the client's errors")
struct UploaderTests {
    @Test("backoff doubles up to the maximum, with the upper half random")
    func backoff() {
        let b = RetryBackoff(base: .seconds(1), maximum: .seconds(60))
        #expect(b.delay(afterAttempts: 1, random: 0) == .milliseconds(500))
        #expect(b.delay(afterAttempts: 1, random: 0.999) == .milliseconds(999))
        #expect(b.delay(afterAttempts: 3, random: 0) == .seconds(2))
        #expect(b.delay(afterAttempts: 20, random: 0) == .seconds(30))
        #expect(b.delay(afterAttempts: 20, random: 0.5) == .seconds(45))
    }

    @Test("a deadline bounds the work: with the service unreachable, the drain returns when the budget is spent")
    func deadline() async throws {
        let clock = TestClock()
        let start = clock.now
        let client = LivelineAppClient(baseURL: URL(string: "http://127.0.0.1:1")!, appKey: "ll_app_secret")
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("liveline-kit-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = LogLines()
        let uploader = try TokenUploader(directory: directory, client: client, deviceID: "phone-1",
                                         environment: UploaderEnvironment(now: { clock.now }, random: { 0 }, sleep: { clock.advance($0) }, log: lines.append))
        await uploader.registerDevice(KitFixture.device())
        let token = newToken().hex
        await uploader.setActivityToken(token, activityID: "flight-1")
        let report = await uploader.drain(within: .seconds(10))
        #expect(report.remaining == 2)
        #expect(clock.now.timeIntervalSince(start) <= 10)
        #expect(report.nextAttempt! > clock.now.addingTimeInterval(-0.001))
        // Logs name the token by prefix only, and never the key.
        #expect(!lines.all.isEmpty)
        #expect(lines.all.allSatisfy { !$0.contains(token) && !$0.contains("ll_app_secret") })
        #expect(lines.all.contains { $0.contains(String(token.prefix(8))) })
    }

    @Test("the client's errors name the status and the service's code and message, never the key")
    func clientErrors() async throws {
        let f = try await KitFixture()
        let bad = LivelineAppClient(baseURL: URL(string: f.url)!, appKey: "ll_app_wrong_key_123")
        do throws(LivelineAppError) {
            try await bad.registerDevice(KitFixture.device())
            Issue.record("a wrong key was accepted")
        } catch {
            #expect(error.status == 401)
            #expect(error.code != nil)
            #expect(error.isRetryable)
            #expect(!error.description.contains("ll_app_wrong_key_123"))
            #expect(error.description.contains("POST /v1/installations: 401"))
        }
        do throws(LivelineAppError) {
            try await f.client.putPushToStartToken(newToken().hex, attributesType: "FlightAttributes", deviceID: "nobody")
            Issue.record("a token for an unknown device was accepted")
        } catch {
            #expect(error.isUnknownDevice)
        }
        // Deleting a token the service does not have is not an error (safe to repeat).
        try await f.client.registerDevice(KitFixture.device())
        try await f.client.deleteActivityToken(activityID: "never", deviceID: "phone-1")
        await f.stop()
        let down = LivelineAppClient(baseURL: URL(string: "http://127.0.0.1:1")!, appKey: "k")
        do throws(LivelineAppError) {
            try await down.registerDevice(KitFixture.device())
            Issue.record("no service, yet an answer")
        } catch {
            #expect(error.isTransport)
            #expect(error.isRetryable)
        }
    }

    @Test("a refusal that retrying cannot fix is dropped and reported; the rest still goes")
    func permanentRefusalDropped() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        // iOS 17.0 has no push-to-start: the service answers 422.
        await uploader.registerDevice(KitFixture.device(ios: "17.0"))
        await uploader.setPushToStartToken(newToken().hex, attributesType: "FlightAttributes")
        let token = newToken()
        await uploader.setActivityToken(token.hex, activityID: "flight-1")
        let report = await uploader.drain()
        #expect(report.dropped.count == 1)
        #expect(report.dropped.first?.contains("push-to-start-unsupported") == true)
        #expect(report.remaining == 0)
        #expect(try f.activityToken("flight-1") == token.hex)
        await f.stop()
    }

    @Test("a rotation while the older token is on the wire: the newer one stays queued and goes next")
    func replacedWhileSending() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        await uploader.drain()
        let first = newToken(), second = newToken()
        await uploader.setActivityToken(first.hex, activityID: "flight-1")
        async let draining = uploader.drain()
        await uploader.setActivityToken(second.hex, activityID: "flight-1")
        _ = await draining
        await uploader.drain()
        #expect(await uploader.pending.isEmpty)
        #expect(try f.activityToken("flight-1") == second.hex)
        await f.stop()
    }

    @Test("drains called together run one after another, and each operation goes once")
    func concurrentDrains() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        for i in 0..<5 { await uploader.setActivityToken(newToken().hex, activityID: "flight-\(i)") }
        async let a = uploader.drain()
        async let b = uploader.drain()
        async let c = uploader.drain()
        let reports = await [a, b, c]
        #expect(reports.map(\.sent.count).reduce(0, +) == 6)
        #expect(reports.allSatisfy { $0.remaining == 0 })
        #expect(!String(describing: f.client).contains(f.appKey))
        await f.stop()
    }

    @Test("over the service's rate limit: 429 with Retry-After, and the uploader waits that long")
    func retryAfter() async throws {
        // The installation's bucket of three that refills once in 100 s: the device, then flight-0's
        // token (refused for lack of a grant, then sent with the backend's grant); the fourth request is over it.
        let f = try await KitFixture { $0.installationRateLimit = 0.01; $0.installationRateBurst = 3 }
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        for i in 0..<3 { await uploader.setActivityToken(newToken().hex, activityID: "flight-\(i)") }
        let start = f.clock.now
        let report = await uploader.drain(within: .seconds(1))
        // Two within the burst, then 429: the rest waits for Retry-After (about 100 s), beyond this drain.
        #expect(report.sent.count == 2)
        #expect(report.remaining == 2)
        // The retry is due exactly Retry-After whole seconds on (backoff alone would say 0.75 s, then 1.5 s more).
        let wait = try #require(report.nextAttempt).timeIntervalSince(start)
        #expect(wait >= 1 && wait == wait.rounded(), "\(wait)")
        await f.stop()
    }

    @Test("a deletion is queued only when the service may hold the token: confirmed, or an upload still queued")
    func deletionOnlyWhenHeld() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("liveline-kit-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let uploader = try TokenUploader(directory: directory, client: LivelineAppClient(baseURL: URL(string: "http://127.0.0.1:1")!, appKey: "k"), deviceID: "phone-1")
        await uploader.deleteActivityToken(activityID: "never-registered")
        #expect(await uploader.pending.isEmpty)
        await uploader.setActivityToken(newToken().hex, activityID: "flight-1")
        await uploader.deleteActivityToken(activityID: "flight-1")
        #expect(await uploader.pending == [.deleteActivityToken(activityID: "flight-1", deviceID: "phone-1")])
    }

    @Test("a queue file that does not decode is moved aside and the uploader starts empty")
    func unreadableQueue() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("liveline-kit-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: directory.appendingPathComponent("liveline-uploads.json"))
        let uploader = try TokenUploader(directory: directory, client: LivelineAppClient(baseURL: URL(string: "http://127.0.0.1:1")!, appKey: "k"), deviceID: "phone-1")
        #expect(await uploader.pending.isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("liveline-uploads.json.unreadable").path))
    }
}

final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}
