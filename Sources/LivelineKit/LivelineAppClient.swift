import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore

/// The service's app-facing API (docs/service.md): register the device, its push-to-start tokens
/// per attributes type, update tokens per logical activity, delete them when an activity ends,
/// taps and receipts. One call is one request; retrying and ordering are `TokenUploader`'s job.
///
/// - Important: the app key goes only into `Authorization: Bearer`; errors and `description` never
///   show it, and tokens appear only in request bodies, never in errors.
public struct LivelineAppClient: Sendable, CustomStringConvertible {
    /// Where the service listens, e.g. `https://live.example.com`.
    public var baseURL: URL
    /// The app key (`POST /v1/keys` with scope `app`).
    public var appKey: String
    /// Each request's timeout; a background wake lasts about 30 s, so keep it well under that.
    public var requestTimeout: TimeInterval
    private let session: URLSession

    /// - Parameters:
    ///   - baseURL: the service's address.
    ///   - appKey: the app key sent as `Authorization: Bearer`.
    ///   - requestTimeout: per request, 10 s by default.
    ///   - session: the session to use (`.shared` by default; a background-friendly one on iOS).
    public init(baseURL: URL, appKey: String, requestTimeout: TimeInterval = 10, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.appKey = appKey
        self.requestTimeout = requestTimeout
        self.session = session
    }

    public var description: String { "LivelineAppClient(\(baseURL.absoluteString), key: ***)" }

    /// `PUT /v1/devices/{deviceID}`. Returns true when the service created it (201).
    @discardableResult
    public func registerDevice(_ device: DeviceRegistration) async throws(LivelineAppError) -> Bool {
        var body: JSONObject = ["bundleID": .string(device.bundleID), "iosVersion": .string(device.iosVersion),
                                "frequentUpdates": .bool(device.frequentUpdates)]
        if let user = device.userID { body["userID"] = .string(user) }
        return try await call("PUT", ["v1", "devices", device.deviceID], body: .object(body)).status == 201
    }

    /// `PUT /v1/devices/{deviceID}/push-to-start/{attributesType}` with the hex token.
    public func putPushToStartToken(_ token: String, attributesType: String, deviceID: String) async throws(LivelineAppError) {
        _ = try await call("PUT", ["v1", "devices", deviceID, "push-to-start", attributesType], body: ["token": .string(token)])
    }

    /// `PUT /v1/activities/{activityID}/tokens/{deviceID}`: the update token for the logical activity.
    /// `attributesType` tells the service the type of an activity the app started itself.
    public func putActivityToken(_ token: String, activityID: String, deviceID: String, attributesType: String? = nil) async throws(LivelineAppError) {
        var body: JSONObject = ["token": .string(token)]
        if let attributesType { body["attributesType"] = .string(attributesType) }
        _ = try await call("PUT", ["v1", "activities", activityID, "tokens", deviceID], body: .object(body))
    }

    /// `DELETE /v1/activities/{activityID}/tokens/{deviceID}`. A token the service does not have
    /// (404) counts as deleted: the call is safe to repeat.
    public func deleteActivityToken(activityID: String, deviceID: String) async throws(LivelineAppError) {
        do throws(LivelineAppError) {
            _ = try await call("DELETE", ["v1", "activities", activityID, "tokens", deviceID], body: nil)
        } catch where error.status == 404 {
            return
        }
    }

    /// `POST /v1/activities/{activityID}/interactions` with `Idempotency-Key`: the service delivers
    /// a key once, however often it is posted. Returns true when this call recorded it (201).
    @discardableResult
    public func postInteraction(_ interaction: Interaction) async throws(LivelineAppError) -> Bool {
        var body: JSONObject = ["action": .string(interaction.action)]
        if let device = interaction.deviceID { body["deviceID"] = .string(device) }
        if let payload = interaction.payload { body["payload"] = payload }
        let reply = try await call("POST", ["v1", "activities", interaction.activityID, "interactions"], body: .object(body),
                                   headers: ["Idempotency-Key": interaction.idempotencyKey])
        return reply.status == 201
    }

    /// `POST /v1/activities/{activityID}/receipts`: the device displayed the newest content.
    public func postReceipt(activityID: String, deviceID: String, displayedAt: Date? = nil) async throws(LivelineAppError) {
        var body: JSONObject = ["deviceID": .string(deviceID)]
        if let displayedAt { body["displayedAt"] = .string(Self.iso8601(displayedAt)) }
        _ = try await call("POST", ["v1", "activities", activityID, "receipts"], body: .object(body))
    }

    /// One answer: the status and the JSON body.
    struct Reply: Sendable {
        var status: Int
        var json: JSONValue?
    }

    func call(_ method: String, _ segments: [String], body: JSONValue?, headers: [String: String] = [:]) async throws(LivelineAppError) -> Reply {
        let path = "/" + segments.map(Self.escape).joined(separator: "/")
        let label = "\(method) \(path)"
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) else {
            throw .invalidResponse("cannot form a URL from \(baseURL.absoluteString) and \(path)", request: label)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = requestTimeout
        request.setValue("Bearer \(appKey)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serialized())
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport(Self.describe(error), request: label)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP answer", request: label) }
        let json = try? JSONValue.parse(Array(data))
        guard (200..<300).contains(http.statusCode) else {
            let error = json?["error"]
            let message = error?["message"]?.stringValue ?? String(decoding: data.prefix(200), as: UTF8.self)
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(TimeInterval.init)
            throw .service(status: http.statusCode, code: error?["code"]?.stringValue, message: message, request: label, retryAfter: retryAfter)
        }
        return Reply(status: http.statusCode, json: json)
    }

    private static func describe(_ error: any Error) -> String {
        if let url = error as? URLError { return "URLError \(url.code.rawValue): \(url.localizedDescription)" }
        return String(describing: error)
    }

    private static let pathAllowed: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/?#")
        return set
    }()

    private static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? segment
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// What `PUT /v1/devices/{deviceID}` registers.
public struct DeviceRegistration: Sendable, Codable, Equatable {
    /// The app's own stable id for this install (keep it in the keychain or app container).
    public var deviceID: String
    public var bundleID: String
    /// `UIDevice.current.systemVersion`, e.g. `18.2`.
    public var iosVersion: String
    /// Who uses the device, for starts addressed to users.
    public var userID: String?
    /// `ActivityAuthorizationInfo().frequentPushesEnabled`.
    public var frequentUpdates: Bool

    public init(deviceID: String, bundleID: String, iosVersion: String, userID: String? = nil, frequentUpdates: Bool = false) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.iosVersion = iosVersion
        self.userID = userID
        self.frequentUpdates = frequentUpdates
    }
}

/// A tap in a Live Activity (an App Intent), delivered to the backend's webhook once.
public struct Interaction: Sendable, Codable, Equatable {
    public var activityID: String
    public var action: String
    public var payload: JSONValue?
    public var deviceID: String?
    /// Made once when the tap happens (a UUID), and kept with it until the service has it.
    public var idempotencyKey: String

    public init(activityID: String, action: String, payload: JSONValue? = nil, deviceID: String? = nil, idempotencyKey: String = UUID().uuidString) {
        self.activityID = activityID
        self.action = action
        self.payload = payload
        self.deviceID = deviceID
        self.idempotencyKey = idempotencyKey
    }
}

extension Data {
    /// Lower-case hex, the form the service takes tokens in.
    var hexString: String {
        var out = ""
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(Self.digits[Int(byte >> 4)])
            out.append(Self.digits[Int(byte & 0x0f)])
        }
        return out
    }
    private static let digits = Array("0123456789abcdef")
}

extension String {
    /// A token as logs may show it: the first 8 characters.
    var tokenPrefix: String { count > 8 ? prefix(8) + "…" : self }
}
