import Foundation
import LivelineCore

/// Everything `liveline serve` can be told, with defaults. Read from a JSON file (`--config`),
/// then environment variables (`LIVELINE_*`), then command-line flags, later ones winning.
public struct ServiceConfiguration: Sendable {
    /// Where the API listens.
    public var host = "127.0.0.1"
    public var port = 8080
    /// The SQLite database file, or a PostgreSQL URL (`postgres://user:password@host/db`) that
    /// several instances share.
    public var database = "liveline.db"
    /// Send every app's pushes here instead of Apple's hosts (a simulator), as `host:port`.
    public var apnsHost: String?
    /// CA file that signs `apnsHost`'s certificate. Verification is always on.
    public var caFile: String?
    /// Largest request body accepted.
    public var maxBodyBytes = 256 * 1024
    /// Requests a second per API key, and the burst above it.
    public var rateLimit = 200.0
    public var rateBurst = 400.0
    /// Priority-10 pushes per activity and device per hour before the service lowers them to 5.
    public var immediateBudgetPerHour = 12
    /// The same when the device has enabled frequent updates.
    public var frequentImmediateBudgetPerHour = 60
    /// Push-to-start pushes per device in `startBudgetWindow` before a start is refused.
    public var startBudget = 10
    public var startBudgetWindow: Duration = .seconds(3600)
    /// Retries of a transient failure (429, 5xx, connection loss), with exponential backoff.
    public var maxAttempts = 8
    public var retryBase: Duration = .seconds(1)
    public var retryMax: Duration = .seconds(300)
    /// Pushes on the wire at once, and how long a worker's claim on its rows lasts.
    public var maxInFlight = 1000
    public var lease: Duration = .seconds(60)
    /// Connections per app to APNs.
    public var connections = 1
    /// The backend's webhook for interactions (signed with HMAC-SHA256 using `webhookSecret`).
    public var webhookURL: String?
    public var webhookSecret: String?
    /// Schema files of attributes types besides the built-in ones.
    public var schemaFiles: [String] = []
    /// HTTP worker threads.
    public var threads = 2
    /// Requests a second per installation (its credential), and the burst above it.
    public var installationRateLimit = 5.0
    public var installationRateBurst = 60.0
    /// Requests a second per client address for what no installation or admin key vouches for:
    /// unauthenticated routes and app-key calls (creating installations). Failed authentications
    /// have a budget of their own per address (1 a second, 30 at once).
    public var addressRateLimit = 20.0
    public var addressRateBurst = 200.0
    /// Proxies whose `X-Forwarded-For` names the client (their addresses, without ports).
    public var trustedProxies: [String] = []
    /// Installations a user may be bound to at once (by verified user tokens).
    public var maxInstallationsPerUser = 10
    /// Largest `payload` of an interaction, in bytes of JSON.
    public var interactionPayloadBytes = 4096
    /// Interactions one installation may post per hour.
    public var interactionQuotaPerHour = 600
    /// Channels per app the service keeps at most (APNs allows 10,000): an on-demand channel or
    /// `POST /v1/channels` past it is refused before APNs is asked.
    public var channelLimit = 10_000
    /// How long an activity's on-demand channel outlives the activity's end before it is deleted.
    public var activityChannelGrace: Duration = .seconds(900)
    /// Interactions whose webhook is done are deleted after this many days.
    public var interactionRetentionDays = 30.0

    // MARK: Keys, secrets, webhooks and the admin listener (docs/service.md, "Keys and secrets")
    /// How long an API key read from the database is trusted before it is read again. Revocation
    /// also clears the cache at once on every instance (PostgreSQL `LISTEN`); this bounds what a
    /// lost notification could keep alive.
    public var keyCacheTTL: Duration = .seconds(5)
    /// Where the bootstrap admin key is written (a new file, mode 0600); without it, standard error.
    public var adminKeyFile: String?
    /// The key-encryption key that encrypts the apps' `.p8` keys at rest (AES-256-GCM): a file
    /// holding 32 bytes as 64 hex digits or base64, or the same text in `kek` (`LIVELINE_KEK`).
    public var kekFile: String?
    public var kek: String?
    /// The webhook secret before a rotation: during it, each POST carries both signatures.
    public var webhookPreviousSecret: String?
    /// Whether the webhook may resolve to private, link-local or loopback addresses other than a
    /// literal loopback URL (refused by default: a webhook must not reach into the network it runs in).
    public var webhookAllowPrivate = false
    /// `host:port` of a second listener that alone serves the admin routes; the public listener then
    /// serves only the app and public routes.
    public var adminListen: String?
    /// A PEM certificate (chain) and its key: the listeners serve HTTPS (libmicrohttpd on GnuTLS)
    /// instead of plain HTTP. Both or neither.
    public var tlsCertFile: String?
    public var tlsKeyFile: String?

    // MARK: Token hygiene (docs/service.md, "Token environments and expiry")
    /// `host:port` for the pushes of one environment's tokens (a simulator's sandbox or production
    /// listener); each falls back to `apnsHost`, then to Apple's host of that environment.
    public var apnsSandboxHost: String?
    public var apnsProductionHost: String?
    /// A push-to-start token the app has not registered or reported again for this long is not
    /// used for starts; `nil` (0 in files, flags and the environment): never.
    public var pushToStartTokenMaxUnseen: Duration? = .seconds(30 * 86_400)

    // MARK: The per-device status of an activity (Service+ActivityStatus.swift)
    /// A push-to-start APNs accepted with no update token and no receipt from the device this long
    /// after is reported as never shown (`start-never-shown`: Apple's force-quit bug).
    public var startShownWithin: Duration = .seconds(120)
    /// An update APNs accepted for a device that sends receipts, with none this long after, is
    /// reported as not displayed (`no-receipt`).
    public var receiptWithin: Duration = .seconds(60)

    /// Checks every answer against the schema `/openapi.json` publishes for it before it leaves,
    /// and answers 500 `answer-off-contract` naming the difference instead (logged too). For the
    /// project's own tests, the demo and a staging deployment: it costs a walk of each answer.
    public var checkAnswers = false

    // MARK: Renewal past 8 hours (Service+Renewal.swift)
    /// How long before ActivityKit's 8 hours an activity started with `"renew": true` gets its
    /// successor pushed: the successor's update token or receipt has this long to come.
    public var renewalMargin: Duration = .seconds(900)
    /// Where the service reads the time: the wall clock; a test drives the service and the
    /// simulator from one virtual clock (the outbox, provider tokens, statuses and renewals read it).
    public var clock: @Sendable () -> Date = { Date() }

    public init() {}

    /// A problem with the configuration, naming the setting.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Every setting's name in files and, upper-cased with `LIVELINE_`, in the environment.
    public static let settingNames = [
        "host", "port", "database", "apnsHost", "caFile", "maxBodyBytes", "rateLimit", "rateBurst", "immediateBudgetPerHour",
        "frequentImmediateBudgetPerHour", "startBudget", "startBudgetWindowSeconds", "maxAttempts", "retryBaseSeconds", "retryMaxSeconds",
        "maxInFlight", "leaseSeconds", "connections", "webhookURL", "webhookSecret", "schemaFiles", "threads",
        "installationRateLimit", "installationRateBurst", "addressRateLimit", "addressRateBurst", "trustedProxies",
        "maxInstallationsPerUser", "interactionPayloadBytes", "interactionQuotaPerHour", "interactionRetentionDays",
        "keyCacheSeconds", "adminKeyFile", "kekFile", "kek", "webhookPreviousSecret", "webhookAllowPrivate", "adminListen",
        "tlsCertFile", "tlsKeyFile", "apnsSandboxHost", "apnsProductionHost", "pushToStartTokenMaxUnseenDays",
        "startShownWithinSeconds", "receiptWithinSeconds", "channelLimit", "activityChannelGraceSeconds", "checkAnswers",
        "renewalMarginSeconds",
    ]

    /// Applies a JSON configuration file's members; unknown names are refused.
    public mutating func apply(file path: String) throws(Problem) {
        guard let data = FileManager.default.contents(atPath: path) else { throw Problem(message: "cannot read the configuration file '\(path)'") }
        let value: JSONValue
        do { value = try JSONValue.parse(Array(data)) } catch { throw Problem(message: "configuration file '\(path)': \(error)") }
        guard let object = value.objectValue else { throw Problem(message: "configuration file '\(path)': expected a JSON object") }
        for member in object {
            let text: String
            switch member.value {
            case .string(let s): text = s
            case .number(let n): text = JSONValue.javaScriptNumber(n)
            case .bool(let b): text = b ? "true" : "false"
            case .array(let a) where member.key == "trustedProxies":
                trustedProxies = a.compactMap(\.stringValue)
                continue
            case .array(let a) where member.key == "schemaFiles":
                schemaFiles = try a.map { (v: JSONValue) throws(Problem) -> String in
                    guard let s = v.stringValue else { throw Problem(message: "configuration file '\(path)': schemaFiles must be strings") }
                    return s
                }
                continue
            default: throw Problem(message: "configuration file '\(path)': \(member.key) has an unsupported value type \(member.value.typeName)")
            }
            try set(member.key, text, source: "configuration file '\(path)'")
        }
    }

    /// Applies `LIVELINE_<NAME>` variables (`LIVELINE_PORT`, `LIVELINE_APNS_HOST`, ...).
    public mutating func apply(environment: [String: String]) throws(Problem) {
        for name in Self.settingNames {
            let variable = "LIVELINE_" + Self.snake(name).uppercased()
            if let value = environment[variable] { try set(name, value, source: "environment variable \(variable)") }
        }
    }

    static func snake(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase, !out.isEmpty, !(out.last?.isUppercase ?? false) { out += "_" }
            out.append(c)
        }
        return out.replacingOccurrences(of: "U_R_L", with: "URL")
    }

    /// Sets one setting from text, with an error naming it and where it came from.
    public mutating func set(_ name: String, _ text: String, source: String) throws(Problem) {
        func int(_ range: ClosedRange<Int>) throws(Problem) -> Int {
            guard let v = Int(text), range.contains(v) else { throw Problem(message: "\(source): \(name) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'") }
            return v
        }
        func double(_ range: ClosedRange<Double>) throws(Problem) -> Double {
            guard let v = Double(text), v.isFinite, range.contains(v) else { throw Problem(message: "\(source): \(name) must be a number from \(JSONValue.javaScriptNumber(range.lowerBound)) to \(JSONValue.javaScriptNumber(range.upperBound)), got '\(text)'") }
            return v
        }
        func seconds(_ range: ClosedRange<Double>) throws(Problem) -> Duration { .milliseconds(Int64(try double(range) * 1000)) }
        switch name {
        case "host": host = text
        case "port": port = try int(0...65535)
        case "database": database = text
        case "apnsHost": apnsHost = text.isEmpty ? nil : text
        case "caFile": caFile = text.isEmpty ? nil : text
        case "maxBodyBytes": maxBodyBytes = try int(1024...(64 << 20))
        case "rateLimit": rateLimit = try double(0.001...1_000_000)
        case "rateBurst": rateBurst = try double(1...10_000_000)
        case "immediateBudgetPerHour": immediateBudgetPerHour = try int(0...100_000)
        case "frequentImmediateBudgetPerHour": frequentImmediateBudgetPerHour = try int(0...100_000)
        case "startBudget": startBudget = try int(1...100_000)
        case "startBudgetWindowSeconds": startBudgetWindow = try seconds(1...86_400)
        case "maxAttempts": maxAttempts = try int(1...100)
        case "channelLimit": channelLimit = try int(1...10_000)
        case "activityChannelGraceSeconds": activityChannelGrace = try seconds(0.01...86_400)
        case "retryBaseSeconds": retryBase = try seconds(0.001...3600)
        case "retryMaxSeconds": retryMax = try seconds(0.001...86_400)
        case "maxInFlight": maxInFlight = try int(1...100_000)
        case "leaseSeconds": lease = try seconds(1...3600)
        case "connections": connections = try int(1...64)
        case "webhookURL": webhookURL = text.isEmpty ? nil : text
        case "webhookSecret": webhookSecret = text.isEmpty ? nil : text
        case "schemaFiles": schemaFiles = text.split(separator: ",").map(String.init)
        case "threads": threads = try int(1...64)
        case "installationRateLimit": installationRateLimit = try double(0.001...1_000_000)
        case "installationRateBurst": installationRateBurst = try double(1...10_000_000)
        case "addressRateLimit": addressRateLimit = try double(0.001...1_000_000)
        case "addressRateBurst": addressRateBurst = try double(1...10_000_000)
        case "trustedProxies": trustedProxies = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case "maxInstallationsPerUser": maxInstallationsPerUser = try int(1...10_000)
        case "interactionPayloadBytes": interactionPayloadBytes = try int(2...1_048_576)
        case "interactionQuotaPerHour": interactionQuotaPerHour = try int(1...1_000_000)
        case "interactionRetentionDays": interactionRetentionDays = try double(0.001...3650)
        case "keyCacheSeconds": keyCacheTTL = try seconds(0...300)
        case "adminKeyFile": adminKeyFile = text.isEmpty ? nil : text
        case "kekFile": kekFile = text.isEmpty ? nil : text
        case "kek": kek = text.isEmpty ? nil : text
        case "webhookPreviousSecret": webhookPreviousSecret = text.isEmpty ? nil : text
        case "checkAnswers":
            guard let b = ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][text.lowercased()] else {
                throw Problem(message: "\(source): checkAnswers must be true or false, got '\(text.prefix(20))'")
            }
            checkAnswers = b
        case "webhookAllowPrivate":
            guard let b = ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][text.lowercased()] else {
                throw Problem(message: "\(source): webhookAllowPrivate must be true or false, got '\(text.prefix(20))'")
            }
            webhookAllowPrivate = b
        case "startShownWithinSeconds": startShownWithin = try seconds(0.001...86_400)
        case "receiptWithinSeconds": receiptWithin = try seconds(0.001...86_400)
        case "renewalMarginSeconds": renewalMargin = try seconds(60...14_400)
        case "tlsCertFile": tlsCertFile = text.isEmpty ? nil : text
        case "tlsKeyFile": tlsKeyFile = text.isEmpty ? nil : text
        case "apnsSandboxHost": apnsSandboxHost = text.isEmpty ? nil : text
        case "apnsProductionHost": apnsProductionHost = text.isEmpty ? nil : text
        case "pushToStartTokenMaxUnseenDays":
            let days = try double(0...3650)
            pushToStartTokenMaxUnseen = days == 0 ? nil : .milliseconds(Int64(days * 86_400_000))
        case "adminListen":
            if text.isEmpty { adminListen = nil; break }
            guard let colon = text.lastIndex(of: ":"), let p = Int(text[text.index(after: colon)...]), (0...65535).contains(p), colon != text.startIndex else {
                throw Problem(message: "\(source): adminListen must be host:port (such as 127.0.0.1:8081), got '\(text.prefix(80))'")
            }
            adminListen = text
        default:
            let near = Self.settingNames.first { $0.lowercased() == name.lowercased() }
            throw Problem(message: "\(source): unknown setting '\(name)'" + (near.map { " (did you mean '\($0)'?)" } ?? ""))
        }
    }
}
