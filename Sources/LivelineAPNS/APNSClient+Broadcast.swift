import Foundation
import LivelineCore

extension APNSClient {
    /// Sends a Live Activity update or end to every activity subscribed to a broadcast channel
    /// (`POST /4/broadcasts/apps/<bundle id>` on the environment's broadcast host).
    ///
    /// - Parameters:
    ///   - request: a `liveactivity` push; its topic is not sent (the bundle ID is in the path).
    ///   - channelID: the base64 channel ID from `createChannel`.
    ///   - bundleID: the bare app ID, without `.push-type.liveactivity`.
    ///   - requestID: `apns-request-id`, a UUID; APNs makes one when nil.
    /// - Important: the body limit is 5120 bytes; No-Message-Stored channels need `expiration: .immediately`.
    ///   A non-zero expiration to such a channel fails here, before anything is sent (APNs would
    ///   answer 400 `BadExpirationDate`): the client knows the channel's policy from `createChannel`
    ///   or `readChannel`, or reads it once when it does not.
    public func broadcast(_ request: PushRequest, channelID: String, bundleID: String, requestID: UUID? = nil) async -> APNSResult {
        if channelID.isEmpty || Base64Check.isBase64(channelID) == false {
            return .failed(APNSClientError(.invalidRequest, "channel ID \"\(channelID)\" is not base64 (APNs channel IDs look like dHN0LXNyY2gtY2hubA==)"))
        }
        if let problem = Self.checkBundleID(bundleID) { return .failed(problem) }
        let body: [UInt8]
        do {
            body = try request.validate(for: .broadcast)
        } catch {
            return .failed(APNSClientError(.invalidRequest, error.message))
        }
        if let expiration = request.expiration, expiration != .immediately,
           await storagePolicy(of: channelID, bundleID: bundleID) == .noMessageStored {
            return .failed(APNSClientError(.expirationOnUnstoredChannel, "channel \(channelID) stores no messages (message-storage-policy 0): APNs refuses a non-zero apns-expiration there (400 BadExpirationDate); send expiration 0 (.immediately)"))
        }
        var headers: [(name: String, value: String)] = [("apns-push-type", request.pushType.rawValue), ("apns-channel-id", channelID)]
        if let priority = request.priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration = request.expiration { headers.append(("apns-expiration", expiration.headerValue)) }
        if let requestID = requestID ?? request.apnsID { headers.append(("apns-request-id", requestID.uuidString.lowercased())) }
        let environment = configuration.environment
        let wire = WireRequest(method: "POST", path: "/4/broadcasts/apps/\(bundleID)", headers: headers, body: body)
        return await perform(wire, on: pool(host: environment.broadcastHost, port: environment.broadcastPort), idHeader: "apns-request-id")
    }

    /// The bundle ID in a broadcast or channel path: bare, no push-type suffix, no slash.
    static func checkBundleID(_ bundleID: String) -> APNSClientError? {
        if bundleID.isEmpty || bundleID.contains("/") || bundleID.contains(" ") {
            return APNSClientError(.invalidRequest, "bundle ID \"\(bundleID)\" is not a bundle ID like com.example.app")
        }
        if let doubled = PushRequest.doubledSuffix(Substring(bundleID)) {
            return APNSClientError(.invalidRequest, doubled.message)
        }
        return nil
    }
}

/// Checks the standard base64 alphabet with optional padding.
enum Base64Check {
    static func isBase64(_ text: String) -> Bool {
        guard text.utf8.count % 4 == 0 else { return false }
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }
            default: return false
            }
        }
        return padding <= 2
    }
}
