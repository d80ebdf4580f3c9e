import Foundation
import LivelineCore
import LivelineCrypto
import LivelineHTTPServer
import LivelineService
import LivelineTesting
import Synchronization
import Testing

/// Webhooks: always signed (two signatures during a rotation), never redirected, https or
/// loopback only, private addresses refused unless allowed; against real local receivers.
@Suite("Service: webhook security")
struct ServiceWebhookSecurityTests {
    /// A receiver that records requests and answers `status` (with `location` for a redirect).
    final class Receiver: Sendable {
        let requests = Mutex<[(headers: [String: String], body: [UInt8])]>([])
        let status: Int
        let location: String?
        init(status: Int = 200, location: String? = nil) {
            self.status = status
            self.location = location
        }
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            var headers: [String: String] = [:]
            for h in request.headers { headers[h.name.lowercased()] = h.value }
            requests.withLock { $0.append((headers, request.body)) }
            var response = HTTPResponse.json(status, Array("{}".utf8))
            if let location { response.headers.append(("location", location)) }
            return response
        }
        var count: Int { requests.withLock { $0.count } }
    }

    static func configuration(_ edit: (inout ServiceConfiguration) -> Void) -> ServiceConfiguration {
        var c = ServiceConfiguration()
        c.port = 0
        c.database = ":memory:"
        edit(&c)
        return c
    }

    static func refused(_ c: ServiceConfiguration, _ needle: String) {
        #expect {
            _ = try ServiceServer.start(c) { _ in }
        } throws: { error in
            "\(error)".contains(needle)
        }
    }

    @Test("a webhook URL without a secret, over http to a non-loopback host, or to a private address is refused at start")
    func refusedTargets() throws {
        Self.refused(Self.configuration { $0.webhookURL = "https://hooks.example.com/liveline" }, "webhookURL needs webhookSecret")
        Self.refused(Self.configuration { $0.webhookURL = "http://hooks.example.com/liveline"; $0.webhookSecret = "0123456789abcdef0123" }, "must use https")
        Self.refused(Self.configuration { $0.webhookURL = "https://10.1.2.3/hook"; $0.webhookSecret = "0123456789abcdef0123" }, "private address")
        Self.refused(Self.configuration { $0.webhookURL = "https://169.254.169.254/latest"; $0.webhookSecret = "0123456789abcdef0123" }, "link-local address")
        Self.refused(Self.configuration { $0.webhookURL = "https://[fd00::1]/hook"; $0.webhookSecret = "0123456789abcdef0123" }, "private address")
        Self.refused(Self.configuration { $0.webhookURL = "https://127.0.0.1.nip.example/hook"; $0.webhookSecret = "short" }, "at least 16 characters")
        // Allowed by the setting, the private target starts.
        let allowed = try ServiceServer.start(Self.configuration { $0.webhookURL = "https://10.1.2.3/hook"; $0.webhookSecret = "0123456789abcdef0123"; $0.webhookAllowPrivate = true }) { _ in }
        Task { await allowed.stop() }
    }

    @Test("during a secret rotation each POST carries a valid signature under each secret, over '<t>.<body>' with a current t")
    func twoSecrets() async throws {
        let receiver = Receiver()
        let server = try HTTPServer.start(HTTPServerConfiguration()) { receiver.handle($0) }
        let current = "whsec-current-\(UUID().uuidString)", previous = "whsec-previous-\(UUID().uuidString)"
        let f = try await ServiceFixture { $0.webhookURL = server.url + "/hook"; $0.webhookSecret = current; $0.webhookPreviousSecret = previous }
        defer { Task { await f.stop(); await server.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-wh", phones: ["phone-1"])
        let tap = try await f.admin.call("POST", "/v1/activities/flight-wh/interactions", json: ["action": "share", "deviceID": "phone-1"], headers: ["Idempotency-Key": "tap-rot"])
        #expect(tap.status == 201, "\(tap.json)")
        let delivered = try await Self.waitForWebhook(f, "flight-wh") { $0["webhook"] == "delivered" }
        #expect(delivered)
        let request = try #require(receiver.requests.withLock { $0.first })
        let header = try #require(request.headers["liveline-signature"])
        let parts = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let t = try #require(parts.first { $0[0] == "t" }?[1])
        #expect(abs((Double(t) ?? 0) - Date().timeIntervalSince1970) < 60)
        let signatures = parts.filter { $0[0] == "v1" }.map { $0[1] }
        func sign(_ secret: String) -> String { Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + request.body)) }
        #expect(signatures == [sign(current), sign(previous)])
    }

    @Test("a webhook answering 302 is a failed attempt: the redirect target never receives the interaction")
    func redirectsNotFollowed() async throws {
        let target = Receiver()
        let targetServer = try HTTPServer.start(HTTPServerConfiguration()) { target.handle($0) }
        let redirecting = Receiver(status: 302, location: targetServer.url + "/stolen")
        let redirectServer = try HTTPServer.start(HTTPServerConfiguration()) { redirecting.handle($0) }
        let f = try await ServiceFixture { $0.webhookURL = redirectServer.url + "/hook"; $0.webhookSecret = "whsec-redirect-0123456789" }
        defer { Task { await f.stop(); await redirectServer.stop(); await targetServer.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-rd", phones: ["phone-1"])
        #expect(try await f.admin.call("POST", "/v1/activities/flight-rd/interactions", json: ["action": "share", "deviceID": "phone-1"], headers: ["Idempotency-Key": "tap-rd"]).status == 201)
        let failed = try await Self.waitForWebhook(f, "flight-rd") { $0["lastError"]?.stringValue?.contains("redirect") == true }
        #expect(failed, "the attempt was not recorded as a refused redirect")
        #expect(redirecting.count >= 1)
        #expect(target.count == 0, "the redirect was followed")
    }

    /// This machine's host name when it resolves to loopback or private addresses only (a name, not a literal).
    static let privateHostName: String? = {
        let name = ProcessInfo.processInfo.hostName
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_INET
        var list: UnsafeMutablePointer<addrinfo>?
        guard !name.isEmpty, name != "localhost", getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            let a = entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            let b = withUnsafeBytes(of: a) { Array($0) }
            guard b[0] == 127 || b[0] == 10 || (b[0] == 172 && (16...31).contains(b[1])) || (b[0] == 192 && b[1] == 168) else { return nil }
            next = entry.pointee.ai_next
        }
        return name
    }()

    @Test("a webhook host name that resolves to a loopback or private address is not called, unless webhookAllowPrivate",
          .enabled(if: privateHostName != nil, "needs a host name that resolves to loopback or private addresses"))
    func privateByName() async throws {
        let name = try #require(Self.privateHostName)
        for allowed in [false, true] {
            let f = try await ServiceFixture { $0.webhookURL = "https://\(name):9/hook"; $0.webhookSecret = "whsec-private-0123456789"; $0.webhookAllowPrivate = allowed }
            try await f.register("phone-1")
            try await f.startAndRegister("flight-pn", phones: ["phone-1"])
            #expect(try await f.admin.call("POST", "/v1/activities/flight-pn/interactions", json: ["action": "share", "deviceID": "phone-1"], headers: ["Idempotency-Key": "tap-pn"]).status == 201)
            var lastError = ""
            _ = try await Self.waitForWebhook(f, "flight-pn") { i in
                lastError = i["lastError"]?.stringValue ?? ""
                return !lastError.isEmpty
            }
            await f.stop()
            if allowed {
                #expect(!lastError.isEmpty && !lastError.contains("resolves to"), "\(lastError)")
            } else {
                #expect(lastError.contains("resolves to a"), "\(lastError)")
            }
        }
    }

    /// Polls the admin listing (every 50 ms, at most 15 s) until the activity's first interaction
    /// matches; false when it never did.
    static func waitForWebhook(_ f: ServiceFixture, _ activity: String, _ done: (JSONValue) -> Bool) async throws -> Bool {
        do {
            try await until("the webhook state of \(activity)'s interaction", within: .seconds(15), poll: .milliseconds(50)) {
                let listed = try await f.admin.call("GET", "/v1/activities/\(activity)/interactions")
                return listed.json["interactions"]?.arrayValue?.first.map(done) ?? false
            }
            return true
        } catch is TestingError {
            return false
        }
    }
}
