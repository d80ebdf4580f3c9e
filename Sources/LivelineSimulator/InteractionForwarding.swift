import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore

/// Where a simulated device's App Intents send taps: `POST <baseURL>/v1/activities/{id}/interactions`
/// with `Idempotency-Key`, as the service expects them (docs/service.md), authorised by the app key.
public struct InteractionForwarding: Sendable {
    /// The service's base URL, such as `http://127.0.0.1:8080`.
    public var baseURL: URL
    /// The app key sent as `Authorization: Bearer`, if the receiver wants one.
    public var appKey: String?

    /// A forwarding target.
    public init(baseURL: URL, appKey: String? = nil) {
        self.baseURL = baseURL
        self.appKey = appKey
    }

    /// The request for `interaction`: method, URL, headers and JSON body.
    func request(for interaction: SimulatorInteraction) -> URLRequest {
        let id = interaction.logicalActivityID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? interaction.logicalActivityID
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var request = URLRequest(url: URL(string: "\(base)/v1/activities/\(id)/interactions") ?? baseURL)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(interaction.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        if let appKey { request.setValue("Bearer \(appKey)", forHTTPHeaderField: "Authorization") }
        var body: JSONObject = ["action": .string(interaction.action), "deviceID": .string(interaction.deviceID)]
        if let payload = interaction.payload { body["payload"] = payload }
        request.httpBody = Data(JSONValue.object(body).serialized())
        return request
    }

    /// Sends `interaction`; what came of it.
    func send(_ interaction: SimulatorInteraction) async -> SimulatorInteraction.Forwarding {
        do {
            let (_, response) = try await URLSession.shared.data(for: request(for: interaction))
            return .answered((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch {
            return .failed("POST \(baseURL.absoluteString)/v1/activities/\(interaction.logicalActivityID)/interactions: \(error.localizedDescription)")
        }
    }
}
