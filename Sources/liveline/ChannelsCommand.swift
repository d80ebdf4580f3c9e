import Foundation
import LivelineAPNS
import LivelineCommandLine

/// `liveline channels create|get|delete|list`: manage broadcast channels (iOS 18+).
enum ChannelsCommand {
    /// The `channels` group.
    static var entry: CommandEntry {
        CommandEntry(group: "channels", abstract: "Create, read, delete and list broadcast channels.", children: [
            CommandEntry(Create.self), CommandEntry(Get.self), CommandEntry(Delete.self), CommandEntry(List.self),
        ])
    }

    static let common: [CommandSpec.Option] = [
        .init(name: "bundle-id", valueName: "id", help: "The app's bare bundle ID."),
        .init(name: "request-id", valueName: "uuid", help: "apns-request-id (APNs makes one when absent)."),
    ] + APNSOptions.credentialOptions + APNSOptions.environmentOptions + APNSOptions.timeoutOptions
    static let channelOption = CommandSpec.Option(name: "channel-id", valueName: "base64", help: "The channel ID.")
    static let exitHelp = "Uses the channel-management host (api-manage-broadcast…, port 2195 sandbox / 2196 production).\nExit status: 0 success, 1 rejected by APNs, 2 not delivered, 64 usage."

    enum Create: LivelineCommand {
        static let spec = CommandSpec(
            path: "liveline channels create", abstract: "Create a channel and print its ID.",
            usage: "--bundle-id ID --storage-policy none|most-recent [credentials]",
            options: [.init(name: "storage-policy", valueName: "policy", help: "none (0: higher budget) or most-recent (1: kept up to 8 h).")] + common,
            discussion: exitHelp)

        static func run(_ arguments: Arguments) async throws -> Int32 {
            let policy: APNSMessageStoragePolicy
            switch try arguments.required("storage-policy") {
            case "none", "0", "no-message-stored": policy = .noMessageStored
            case "most-recent", "1", "most-recent-message-stored": policy = .mostRecentMessageStored
            case let other: throw arguments.usageError("'--storage-policy' must be none or most-recent, got '\(other)'")
            }
            let (client, bundleID, requestID) = try setUp(arguments)
            let result = await client.createChannel(bundleID: bundleID, storagePolicy: policy, requestID: requestID)
            await client.shutdown()
            return report(result) { "channel-id=\($0)" }
        }
    }

    enum Get: LivelineCommand {
        static let spec = CommandSpec(
            path: "liveline channels get", abstract: "Print a channel's storage policy.",
            usage: "--bundle-id ID --channel-id ID [credentials]", options: [channelOption] + common, discussion: exitHelp)

        static func run(_ arguments: Arguments) async throws -> Int32 {
            let channelID = try arguments.required("channel-id")
            let (client, bundleID, requestID) = try setUp(arguments)
            let result = await client.readChannel(channelID, bundleID: bundleID, requestID: requestID)
            await client.shutdown()
            return report(result) { "channel-id=\(channelID) message-storage-policy=\($0.storagePolicy.rawValue) push-type=\($0.pushType)" }
        }
    }

    enum Delete: LivelineCommand {
        static let spec = CommandSpec(
            path: "liveline channels delete", abstract: "Delete a channel.",
            usage: "--bundle-id ID --channel-id ID [credentials]", options: [channelOption] + common, discussion: exitHelp)

        static func run(_ arguments: Arguments) async throws -> Int32 {
            let channelID = try arguments.required("channel-id")
            let (client, bundleID, requestID) = try setUp(arguments)
            let result = await client.deleteChannel(channelID, bundleID: bundleID, requestID: requestID)
            await client.shutdown()
            return report(result) { _ in "deleted channel-id=\(channelID)" }
        }
    }

    enum List: LivelineCommand {
        static let spec = CommandSpec(
            path: "liveline channels list", abstract: "Print every channel ID of the app, one a line.",
            usage: "--bundle-id ID [credentials]", options: common, discussion: exitHelp)

        static func run(_ arguments: Arguments) async throws -> Int32 {
            let (client, bundleID, requestID) = try setUp(arguments)
            let result = await client.listChannels(bundleID: bundleID, requestID: requestID)
            await client.shutdown()
            return report(result) { $0.joined(separator: "\n") }
        }
    }

    static func setUp(_ arguments: Arguments) throws -> (APNSClient, String, UUID?) {
        let bundleID = try arguments.required("bundle-id")
        var requestID: UUID?
        if let text = arguments.value("request-id") {
            guard let id = UUID(uuidString: text) else { throw arguments.usageError("'--request-id' must be a UUID, got '\(text)'") }
            requestID = id
        }
        return (APNSClient(configuration: try APNSOptions.configuration(arguments)), bundleID, requestID)
    }

    static func report<Value>(_ result: APNSChannelResult<Value>, _ describe: (Value) -> String) -> Int32 {
        switch result {
        case .success(let value, let requestID):
            let text = describe(value)
            if !text.isEmpty { Console.out(text) }
            Console.err("ok: apns-request-id=\(requestID ?? "-")")
            return 0
        case .rejected(let r):
            Console.out("rejected: \(r.status) \(r.reason) apns-request-id=\(r.apnsID ?? "-")")
            if let meaning = r.reason.entry?.meaning { Console.err("\(r.reason): \(meaning)") }
            return 1
        case .failed(let e):
            Console.out("failed: \(e.code)")
            Console.err("error: \(e.message)")
            return 2
        }
    }
}
