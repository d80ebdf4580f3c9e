import Foundation
import LivelineCore

extension APNSClient {
    /// Creates a broadcast channel (`POST /1/apps/<bundle id>/channels` on the management host).
    ///
    /// - Returns: the new channel ID (base64, from `apns-channel-id`) on 201.
    public func createChannel(bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: UUID? = nil) async -> APNSChannelResult<String> {
        let body = Array("{\"message-storage-policy\":\(storagePolicy.rawValue),\"push-type\":\"LiveActivity\"}".utf8)
        let result: APNSChannelResult<String> = await manage("POST", bundleID: bundleID, suffix: "channels", channelID: nil, body: body, requestID: requestID) { response in
            guard let id = header(response, "apns-channel-id"), !id.isEmpty else {
                return .failure(APNSClientError(.badResponse, "the server answered \(response.status) to channel creation without an apns-channel-id header"))
            }
            return .success(id)
        }
        if let id = result.value { remember(storagePolicy, channelID: id, bundleID: bundleID) }
        return result
    }

    /// Reads a channel's configuration (`GET /1/apps/<bundle id>/channels` with `apns-channel-id`).
    public func readChannel(_ channelID: String, bundleID: String, requestID: UUID? = nil) async -> APNSChannelResult<APNSChannelConfiguration> {
        let result: APNSChannelResult<APNSChannelConfiguration> = await manage("GET", bundleID: bundleID, suffix: "channels", channelID: channelID, body: [], requestID: requestID) { response in
            guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                  let policyNumber = object["message-storage-policy"] as? Int, let policy = APNSMessageStoragePolicy(rawValue: policyNumber)
            else {
                return .failure(APNSClientError(.badResponse, "the channel read response is not {\"message-storage-policy\":0|1,\"push-type\":…}"))
            }
            return .success(APNSChannelConfiguration(storagePolicy: policy, pushType: object["push-type"] as? String ?? ""))
        }
        if let configuration = result.value { remember(configuration.storagePolicy, channelID: channelID, bundleID: bundleID) }
        return result
    }

    /// Deletes a channel (`DELETE /1/apps/<bundle id>/channels` with `apns-channel-id`); 204 on success.
    public func deleteChannel(_ channelID: String, bundleID: String, requestID: UUID? = nil) async -> APNSChannelResult<APNSNoContent> {
        let result: APNSChannelResult<APNSNoContent> = await manage("DELETE", bundleID: bundleID, suffix: "channels", channelID: channelID, body: [], requestID: requestID) { _ in .success(APNSNoContent()) }
        if result.value != nil { _ = channelPolicies.withLock { $0.removeValue(forKey: bundleID + "/" + channelID) } }
        return result
    }

    private func remember(_ policy: APNSMessageStoragePolicy, channelID: String, bundleID: String) {
        channelPolicies.withLock { policies in
            if policies.count >= Self.channelPolicyLimit { policies.removeAll(keepingCapacity: true) }
            policies[bundleID + "/" + channelID] = policy
        }
    }

    /// The channel's storage policy: as this client last created or read it, else read from APNs
    /// now (`nil` when that read fails: the broadcast then goes out and APNs decides).
    func storagePolicy(of channelID: String, bundleID: String) async -> APNSMessageStoragePolicy? {
        if let known = channelPolicies.withLock({ $0[bundleID + "/" + channelID] }) { return known }
        return await readChannel(channelID, bundleID: bundleID).value?.storagePolicy
    }

    /// Lists every channel ID of the app (`GET /1/apps/<bundle id>/all-channels`).
    public func listChannels(bundleID: String, requestID: UUID? = nil) async -> APNSChannelResult<[String]> {
        await manage("GET", bundleID: bundleID, suffix: "all-channels", channelID: nil, body: [], requestID: requestID) { response in
            guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                  let channels = object["channels"] as? [String]
            else { return .failure(APNSClientError(.badResponse, "the channel list response is not {\"channels\":[…]}")) }
            return .success(channels)
        }
    }

    private func manage<Value>(
        _ method: String, bundleID: String, suffix: String, channelID: String?, body: [UInt8], requestID: UUID?,
        decode: (WireResponse) -> Result<Value, APNSClientError>
    ) async -> APNSChannelResult<Value> {
        if let problem = Self.checkBundleID(bundleID) { return .failed(problem) }
        var headers: [(name: String, value: String)] = []
        if let channelID {
            guard !channelID.isEmpty, Base64Check.isBase64(channelID) else {
                return .failed(APNSClientError(.invalidRequest, "channel ID \"\(channelID)\" is not base64 (APNs channel IDs look like dHN0LXNyY2gtY2hubA==)"))
            }
            headers.append(("apns-channel-id", channelID))
        }
        if let requestID { headers.append(("apns-request-id", requestID.uuidString.lowercased())) }
        if !body.isEmpty { headers.append(("content-type", "application/json")) }
        let environment = configuration.environment
        let wire = WireRequest(method: method, path: "/1/apps/\(bundleID)/\(suffix)", headers: headers, body: body)
        let captured = CapturedResponse()
        let result = await perform(wire, on: pool(host: environment.managementHost, port: environment.managementPort), idHeader: "apns-request-id", capture: captured)
        switch result {
        case .failed(let error): return .failed(error)
        case .rejected(let rejection): return .rejected(rejection)
        case .accepted(let accepted):
            guard let response = captured.response else { return .failed(APNSClientError(.badResponse, "no response recorded")) }
            switch decode(response) {
            case .success(let value): return .success(value, requestID: accepted.apnsID)
            case .failure(let error): return .failed(error)
            }
        }
    }
}

func header(_ response: WireResponse, _ name: String) -> String? {
    response.headers.first { $0.name.lowercased() == name }?.value
}
