// The flight tracker's backend side: one flight's day against `liveline serve`'s admin API.
// Start (push-to-start to an audience), the gate, a delay, boarding, the end.
import FlightTrackerShared
import Foundation
import LivelineCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum Usage {
    static let text = """
        usage: flight-tracker-backend [--user ID | --device ID] [--activity ID] [--departure ISO8601] [--token-wait SECONDS]

        Runs one flight's Live Activity through liveline serve: POST /v1/activities/{id}/start to the
        audience, /update for the gate change (with a delay) and boarding, then /end.

        An update reaches the phones that registered the activity's update token, and a phone can only
        do that once the start has reached it. A real flight has hours between the start and the gate;
        this script has none, so after the start it waits (GET /v1/activities/{id}) until a phone has
        registered its token, at most --token-wait seconds.

          --user ID          the audience: a user id the app registered its device under (default: ana)
          --device ID        the audience: one device id instead
          --activity ID      the logical activity id (default: flight-GA2025-<departure day>, as the app derives it)
          --departure DATE   when GA 2025 leaves (default: two hours from now)
          --token-wait SECS  how long to wait for an update token after the start (default 30; 0: do not wait)
          --help             this text

        Environment (both required):
          LIVELINE_URL        the service, e.g. http://127.0.0.1:8080
          LIVELINE_ADMIN_KEY  an admin key (liveline serve prints the first one)

        The service must know FlightActivityAttributes: start it with
        LIVELINE_SCHEMA_FILES=Examples/FlightTracker/FlightActivityAttributes.schema.json.
        """
}

struct Failure: Error { var message: String; var status: Int32 }

/// Sends the admin API's requests; dates as ISO 8601, as the API takes them.
struct Backend: Sendable {
    var baseURL: URL
    var key: String

    func post(_ path: String, _ body: some Encodable) async throws -> String {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        request.httpBody = try encoder.encode(body)
        return String(decoding: try await send(request), as: UTF8.self)
    }

    /// `GET path` decoded as `T`.
    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "GET"
        return try JSONDecoder().decode(T.self, from: try await send(request))
    }

    private func send(_ request: URLRequest) async throws -> Data {
        var request = request
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw Failure(message: "\(request.httpMethod ?? "?") \(request.url?.path ?? "?"): \(status) \(String(decoding: data, as: UTF8.self))", status: 1)
        }
        return data
    }

    /// Waits until the activity has at least one update token, or `seconds` have passed; the
    /// number of tokens it has then.
    func waitForTokens(_ id: String, seconds: Double) async throws -> Int {
        struct Activity: Decodable { struct Token: Decodable { var deviceID: String }; var tokens: [Token] }
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let tokens = try await get("v1/activities/\(id)", as: Activity.self).tokens.count
            if tokens > 0 || Date() >= deadline { return tokens }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

struct Audience: Encodable { var userIDs: [String]?; var deviceIDs: [String]? }
struct PushAlert: Encodable { var title: String; var body: String }
struct Start: Encodable {
    var attributesType = FlightActivityAttributes.attributesType
    var attributes: FlightActivityAttributes
    var contentState: FlightActivityAttributes.ContentState
    var alert: PushAlert
    var audience: Audience
    /// The update-token path this script follows (the app registers its token, the script waits for
    /// it). Without it the service gives an iOS 18 phone a channel of the flight's own instead, which
    /// needs no token (docs/service.md, on-demand channels).
    var channel = "none"
}
struct Update: Encodable { var contentState: FlightActivityAttributes.ContentState; var alert: PushAlert? }
struct End: Encodable { var contentState: FlightActivityAttributes.ContentState; var dismissalDate: Date }

func run(_ args: [String], environment: [String: String]) async throws -> Int32 {
    var options: [String: String] = [:]
    var rest = args[...]
    while let arg = rest.popFirst() {
        if arg == "--help" || arg == "-h" { print(Usage.text); return 0 }
        guard ["--user", "--device", "--activity", "--departure", "--token-wait"].contains(arg), let value = rest.popFirst() else {
            throw Failure(message: "unknown option or missing value: \(arg) (see --help)", status: 64)
        }
        options[String(arg.dropFirst(2))] = value
    }
    guard let url = environment["LIVELINE_URL"].flatMap(URL.init(string:)), url.scheme != nil else {
        throw Failure(message: "LIVELINE_URL is not set (the service's URL, e.g. http://127.0.0.1:8080)", status: 64)
    }
    guard let key = environment["LIVELINE_ADMIN_KEY"], !key.isEmpty else {
        throw Failure(message: "LIVELINE_ADMIN_KEY is not set (an admin key of that service)", status: 64)
    }
    var departure = Date().addingTimeInterval(2 * 3600)
    if let text = options["departure"] {
        guard let date = ISO8601DateFormatter().date(from: text) else { throw Failure(message: "--departure: not an ISO 8601 date: \(text)", status: 64) }
        departure = date
    }
    var tokenWait = 30.0
    if let text = options["token-wait"] {
        guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
            throw Failure(message: "--token-wait: not a number of seconds from 0 to 3600: \(text)", status: 64)
        }
        tokenWait = seconds
    }
    let flight = FlightActivityAttributes.example(scheduledDeparture: departure)
    // The id the app derives from the same attributes (FlightActivityAttributes.logicalID).
    let id = options["activity"] ?? FlightActivityAttributes.logicalID(flightNumber: flight.flightNumber, scheduledDeparture: departure)
    let audience = options["device"].map { Audience(deviceIDs: [$0]) } ?? Audience(userIDs: [options["user"] ?? "ana"])
    let backend = Backend(baseURL: url, key: key)
    let story = FlightActivityAttributes.story(departure: departure)

    print(try await backend.post("v1/activities/\(id)/start", Start(
        attributes: flight, contentState: story[0].state, alert: PushAlert(title: "\(flight.flightNumber) is tracked", body: "\(flight.origin) → \(flight.destination)"), audience: audience)))
    if tokenWait > 0 {
        print("waiting up to \(Int(tokenWait)) s for a phone to register its update token for \(id)")
        let tokens = try await backend.waitForTokens(id, seconds: tokenWait)
        print(tokens == 0 ? "no update token registered: the updates reach no phone" : "\(tokens) update token(s) registered")
    }
    for step in story.dropFirst() {
        let alert: PushAlert? = switch step.name {
        case "gate": PushAlert(title: "Flight Update", body: "Gate: \(step.state.gateNumber) | \(step.state.flightStatus)")
        case "boarding": PushAlert(title: "Boarding Started", body: "Gate \(step.state.gateNumber) is now boarding — hurry!")
        default: nil
        }
        print(try await backend.post("v1/activities/\(id)/update", Update(contentState: step.state, alert: alert)))
    }
    var departed = story[story.count - 1].state
    departed.flightStatus = "Departed"
    departed.isBoarding = false
    print(try await backend.post("v1/activities/\(id)/end", End(contentState: departed, dismissalDate: Date().addingTimeInterval(15 * 60))))
    return 0
}

do {
    exit(try await run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
} catch let failure as Failure {
    FileHandle.standardError.write(Data("flight-tracker-backend: \(failure.message)\n".utf8))
    exit(failure.status)
} catch {
    FileHandle.standardError.write(Data("flight-tracker-backend: \(error)\n".utf8))
    exit(1)
}
