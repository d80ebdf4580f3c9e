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
    /// Where this install's installation credential lives (the Keychain on iOS).
    public var secretStore: any SecretStore
    /// Whether `secretStore` is the default one (memory off iOS): `TokenUploader` then keeps the
    /// credential in a 0600 file in its directory instead.
    let usesDefaultStore: Bool
    private let gate = InstallationGate()
    /// Asks the app's backend for a user token binding `userID` to this installation (the
    /// backend signs it; see docs/security.md). Called when a registration has a `userID` and no
    /// `userToken`; without it, or when it returns nil, the service keeps the userID unverified.
    public var userTokenProvider: (@Sendable (_ installationID: String, _ userID: String) async -> String?)?
    /// Asks the app's backend for a grant (a signed permission) to register this installation's
    /// update token for an activity the service did not push-start on it, e.g. one the app started
    /// itself under an id the backend chose. Called when the service answers 404 for the activity.
    public var activityGrantProvider: (@Sendable (_ installationID: String, _ activityID: String) async -> String?)?
    /// The APNs environment of this build's tokens, sent with each token as `environment`
    /// (`APSEnvironment.current`, from the embedded provisioning profile, unless set); `nil`: the
    /// service uses the app's default environment.
    public var apsEnvironment: APSEnvironment? = APSEnvironment.current

    /// - Parameters:
    ///   - baseURL: the service's address.
    ///   - appKey: the app key: it only creates this install's installation (`POST /v1/installations`);
    ///     every device call then uses the installation's credential.
    ///   - requestTimeout: per request, 10 s by default.
    ///   - session: the session to use (`.shared` by default; a background-friendly one on iOS).
    ///   - secretStore: where the installation credential is kept; the Keychain on iOS by default.
    public init(baseURL: URL, appKey: String, requestTimeout: TimeInterval = 10, session: URLSession = .shared, secretStore: (any SecretStore)? = nil) {
        self.baseURL = baseURL
        self.appKey = appKey
        self.requestTimeout = requestTimeout
        self.session = session
        usesDefaultStore = secretStore == nil
        #if canImport(Security) && os(iOS)
        self.secretStore = secretStore ?? KeychainSecretStore(account: baseURL.absoluteString)
        #else
        self.secretStore = secretStore ?? MemorySecretStore()
        #endif
    }

    /// This install's installation id (the device id the backend addresses, and the one a user
    /// token must name), or nil before the first registration.
    public var installationID: String? { secretStore.load()?.installationID }

    /// The installation credential, creating the installation with the app key on first need.
    func installation(for device: DeviceRegistration) async throws(LivelineAppError) -> InstallationCredential {
        if let stored = secretStore.load() { return stored }
        let client = self
        do {
            return try await gate.once { () async throws -> InstallationCredential in
                if let stored = client.secretStore.load() { return stored }
                let body: JSONObject = ["bundleID": .string(device.bundleID), "iosVersion": .string(device.iosVersion), "frequentUpdates": .bool(device.frequentUpdates)]
                let reply = try await client.call("POST", ["v1", "installations"], body: .object(body), bearer: client.appKey)
                guard let id = reply.json?["installationID"]?.stringValue, let secret = reply.json?["secret"]?.stringValue else {
                    throw LivelineAppError.invalidResponse("POST /v1/installations answered without installationID and secret", request: "POST /v1/installations")
                }
                let credential = InstallationCredential(installationID: id, secret: secret)
                do { try client.secretStore.save(credential) } catch {
                    throw LivelineAppError.invalidResponse("cannot keep the installation credential: \(error)", request: "POST /v1/installations")
                }
                return credential
            }
        } catch let error as LivelineAppError {
            throw error
        } catch {
            throw .invalidResponse(String(describing: error), request: "POST /v1/installations")
        }
    }

    /// The stored credential for a device call; without one the service "does not know the device"
    /// (404 `unknown-device`), so `TokenUploader` registers it (creating the installation) first.
    private func storedInstallation(_ label: String) throws(LivelineAppError) -> InstallationCredential {
        guard let stored = secretStore.load() else {
            throw .service(status: 404, code: "unknown-device", message: "no installation yet: the device registers first", request: label)
        }
        return stored
    }

    /// A device call with the installation credential. A credential the service no longer knows
    /// (401) is forgotten, and the call fails as `unknown-device` so the device registers again.
    private func deviceCall(_ method: String, _ segments: (String) -> [String], body: JSONValue?, headers: [String: String] = [:],
                            credential: InstallationCredential? = nil) async throws(LivelineAppError) -> Reply {
        let cred: InstallationCredential
        if let credential { cred = credential } else { cred = try storedInstallation(method) }
        do throws(LivelineAppError) {
            return try await call(method, segments(cred.installationID), body: body, headers: headers, bearer: cred.secret)
        } catch where error.status == 401 {
            secretStore.clear()
            throw .service(status: 404, code: "unknown-device", message: "the service no longer knows this installation; registering again", request: method)
        }
    }

    public var description: String { "LivelineAppClient(\(baseURL.absoluteString), key: ***)" }

    /// `PUT /v1/devices/{deviceID}`. Returns true when the service created it (201).
    @discardableResult
    public func registerDevice(_ device: DeviceRegistration) async throws(LivelineAppError) -> Bool {
        var body: JSONObject = ["bundleID": .string(device.bundleID), "iosVersion": .string(device.iosVersion),
                                "frequentUpdates": .bool(device.frequentUpdates)]
        if let user = device.userID { body["userID"] = .string(user) }
        device.appBuildFields(into: &body)
        let credential = try await installation(for: device)
        var userToken = device.userToken
        if userToken == nil, let user = device.userID, let provider = userTokenProvider { userToken = await provider(credential.installationID, user) }
        if let token = userToken { body["userToken"] = .string(token) }
        return try await deviceCall("PUT", { ["v1", "devices", $0] }, body: .object(body), credential: credential).status == 201
    }

    /// `PUT /v1/devices/{deviceID}/push-to-start/{attributesType}` with the hex token.
    public func putPushToStartToken(_ token: String, attributesType: String, deviceID: String) async throws(LivelineAppError) {
        var body: JSONObject = ["token": .string(token)]
        if let apsEnvironment { body["environment"] = .string(apsEnvironment.rawValue) }
        _ = try await deviceCall("PUT", { ["v1", "devices", $0, "push-to-start", attributesType] }, body: .object(body))
    }

    /// `PUT /v1/activities/{activityID}/tokens/{deviceID}`: the update token for the logical activity.
    /// `attributesType` tells the service the type of an activity the app started itself; `grant`
    /// is the backend's signed permission for an activity the service did not start on this device;
    /// `deviceActivityID` (the phone's ActivityKit `Activity.id`, a UUID) becomes an alias of
    /// `activityID` for this installation, and when the service refuses it (409 `alias-taken`,
    /// `too-many-aliases`) the token is sent again without it.
    public func putActivityToken(_ token: String, activityID: String, deviceID: String, attributesType: String? = nil, grant: String? = nil,
                                 deviceActivityID: String? = nil) async throws(LivelineAppError) {
        var body: JSONObject = ["token": .string(token)]
        if let attributesType { body["attributesType"] = .string(attributesType) }
        if let grant { body["grant"] = .string(grant) }
        if let apsEnvironment { body["environment"] = .string(apsEnvironment.rawValue) }
        if let deviceActivityID { body["deviceActivityID"] = .string(deviceActivityID) }
        let put = { (body: JSONObject) async throws(LivelineAppError) in
            do throws(LivelineAppError) {
                _ = try await self.deviceCall("PUT", { ["v1", "activities", activityID, "tokens", $0] }, body: .object(body))
            } catch where error.status == 409 && (error.code == "alias-taken" || error.code == "too-many-aliases") && body["deviceActivityID"] != nil {
                // The service refused the phone's id as an alias (nothing stored): the token still goes.
                var body = body
                body["deviceActivityID"] = nil
                _ = try await self.deviceCall("PUT", { ["v1", "activities", activityID, "tokens", $0] }, body: .object(body))
            }
        }
        do throws(LivelineAppError) {
            try await put(body)
        } catch where error.status == 404 && error.code == "not-found" && grant == nil {
            // Not an activity this installation holds yet: the backend may grant it.
            guard let provider = activityGrantProvider, let id = installationID, let granted = await provider(id, activityID) else { throw error }
            body["grant"] = .string(granted)
            try await put(body)
        }
    }

    /// `PUT /v1/activities/{activityID}/channel-members/{deviceID}`: the activity the app started itself
    /// with `pushType: .channel(channelID)` follows the channel the backend bound to `activityID`. On
    /// 404 `not-found` (the installation does not hold the activity yet) the backend's grant is asked
    /// for once; a `deviceActivityID` refused as an alias (409) is left out and the report sent again.
    public func putChannelMember(activityID: String, channelID: String, deviceID: String, deviceActivityID: String? = nil, grant: String? = nil) async throws(LivelineAppError) {
        var body: JSONObject = ["channelID": .string(channelID)]
        if let grant { body["grant"] = .string(grant) }
        if let deviceActivityID { body["deviceActivityID"] = .string(deviceActivityID) }
        let put = { (body: JSONObject) async throws(LivelineAppError) in
            do throws(LivelineAppError) {
                _ = try await self.deviceCall("PUT", { ["v1", "activities", activityID, "channel-members", $0] }, body: .object(body))
            } catch where error.status == 409 && (error.code == "alias-taken" || error.code == "too-many-aliases") && body["deviceActivityID"] != nil {
                var body = body
                body["deviceActivityID"] = nil
                _ = try await self.deviceCall("PUT", { ["v1", "activities", activityID, "channel-members", $0] }, body: .object(body))
            }
        }
        do throws(LivelineAppError) {
            try await put(body)
        } catch where error.status == 404 && error.code == "not-found" && grant == nil {
            guard let provider = activityGrantProvider, let id = installationID, let granted = await provider(id, activityID) else { throw error }
            body["grant"] = .string(granted)
            try await put(body)
        }
    }

    /// `DELETE /v1/activities/{activityID}/channel-members/{deviceID}`; 404 counts as done.
    public func deleteChannelMember(activityID: String, deviceID: String) async throws(LivelineAppError) {
        do throws(LivelineAppError) {
            _ = try await deviceCall("DELETE", { ["v1", "activities", activityID, "channel-members", $0] }, body: nil)
        } catch where error.status == 404 {
            return
        }
    }

    /// `DELETE /v1/activities/{activityID}/tokens/{deviceID}`. A token the service does not have
    /// (404) counts as deleted: the call is safe to repeat.
    public func deleteActivityToken(activityID: String, deviceID: String) async throws(LivelineAppError) {
        do throws(LivelineAppError) {
            _ = try await deviceCall("DELETE", { ["v1", "activities", activityID, "tokens", $0] }, body: nil)
        } catch where error.status == 404 {
            return
        }
    }

    /// `POST /v1/activities/{activityID}/interactions` with `Idempotency-Key`: the service delivers
    /// a key once, however often it is posted. Returns true when this call recorded it (201).
    @discardableResult
    public func postInteraction(_ interaction: Interaction) async throws(LivelineAppError) -> Bool {
        // The installation's credential names the device: `interaction.deviceID` stays local.
        var body: JSONObject = ["action": .string(interaction.action)]
        if let payload = interaction.payload { body["payload"] = payload }
        let reply = try await deviceCall("POST", { _ in ["v1", "activities", interaction.activityID, "interactions"] }, body: .object(body),
                                         headers: ["Idempotency-Key": interaction.idempotencyKey])
        return reply.status == 201
    }

    /// `POST /v1/activities/{activityID}/receipts`: the device displayed the newest content.
    public func postReceipt(activityID: String, deviceID: String, displayedAt: Date? = nil) async throws(LivelineAppError) {
        var body = JSONObject()
        if let displayedAt { body["displayedAt"] = .string(Self.iso8601(displayedAt)) }
        _ = try await deviceCall("POST", { _ in ["v1", "activities", activityID, "receipts"] }, body: .object(body))
    }

    /// `POST /v1/activities/{activityID}/decode-failures`: the app's attributes type could not
    /// decode a content state; the service's status of the activity gives it as the reason.
    public func postDecodeFailure(activityID: String, deviceID: String, error: String, failedAt: Date? = nil) async throws(LivelineAppError) {
        var body: JSONObject = ["error": .string(String(error.prefix(1000)))]
        if let failedAt { body["failedAt"] = .string(Self.iso8601(failedAt)) }
        _ = try await deviceCall("POST", { _ in ["v1", "activities", activityID, "decode-failures"] }, body: .object(body))
    }

    /// One answer: the status and the JSON body.
    struct Reply: Sendable {
        var status: Int
        var json: JSONValue?
    }

    func call(_ method: String, _ segments: [String], body: JSONValue?, headers: [String: String] = [:], bearer: String) async throws(LivelineAppError) -> Reply {
        let path = "/" + segments.map(Self.escape).joined(separator: "/")
        let label = "\(method) \(path)"
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) else {
            throw .invalidResponse("cannot form a URL from \(baseURL.absoluteString) and \(path)", request: label)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = requestTimeout
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
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

/// Makes the installation once, however many calls need it at the same time.
actor InstallationGate {
    private var running: Task<InstallationCredential, any Error>?

    func once(_ make: @escaping @Sendable () async throws -> InstallationCredential) async throws -> InstallationCredential {
        if let running { return try await running.value }
        let task = Task { try await make() }
        running = task
        defer { running = nil }
        return try await task.value
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
    /// The user token the app's backend signed for `userID` and this installation (an HS256 JWT
    /// with `sub`, `deviceID` = `LivelineAppClient.installationID`, `exp` at most 1 hour ahead):
    /// without it the service keeps `userID` unverified and starts addressed to the user skip it.
    public var userToken: String?
    /// The app's build (`CFBundleVersion`; by default read from the main bundle), so the service
    /// can name the builds a push would not reach (docs/traps.md: older app builds still installed).
    public var appBuild: String? = AppBuildInfo.mainBundle.build
    /// `CFBundleShortVersionString`, by default from the main bundle.
    public var appVersion: String? = AppBuildInfo.mainBundle.version
    /// Per attributes type, the version of its schema this build's `ContentState` decodes (the
    /// versions registered with `PUT /v1/schemas/{type}/versions/{version}`); bump it whenever a
    /// release changes the type.
    public var schemaVersions: [String: String]?

    public init(deviceID: String, bundleID: String, iosVersion: String, userID: String? = nil, frequentUpdates: Bool = false, userToken: String? = nil) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.iosVersion = iosVersion
        self.userID = userID
        self.frequentUpdates = frequentUpdates
        self.userToken = userToken
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
