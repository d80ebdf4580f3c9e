import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore

/// `liveline broadcast`: sends a Live Activity update or end to a broadcast channel (iOS 18+).
enum BroadcastCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline broadcast", abstract: "Send a Live Activity update or end to a broadcast channel.",
        usage: "[update|end] --channel-id ID --bundle-id ID --key AuthKey_<KEYID>.p8 --team-id ID [options]",
        options: [
            .init(name: "channel-id", valueName: "base64", help: "The channel (from 'liveline channels create')."),
            .init(name: "request-id", valueName: "uuid", help: "apns-request-id (APNs makes one when absent)."),
            .init(name: "broadcast-host", valueName: "host", help: "The broadcast host, when not the environment's (api-broadcast…)."),
        ] + APNSOptions.credentialOptions + APNSOptions.environmentOptions + APNSOptions.timeoutOptions + PayloadBuilder.options,
        positionals: 0...1,
        discussion: """
            POST /4/broadcasts/apps/<bundle id> with apns-channel-id; the body limit is 5120 bytes.
            No-Message-Stored channels need --expiration 0.
            Exit status: 0 accepted, 1 rejected by APNs, 2 not delivered, 64 usage.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let event = try APNSOptions.event(arguments)
        if event == .start { throw arguments.usageError("a broadcast cannot start a Live Activity; send start to a push-to-start token with 'liveline send'") }
        let channelID = try arguments.required("channel-id")
        let bundleID = try arguments.required("bundle-id")
        var requestID: UUID?
        if let text = arguments.value("request-id") {
            guard let id = UUID(uuidString: text) else { throw arguments.usageError("'--request-id' must be a UUID, got '\(text)'") }
            requestID = id
        }
        var configuration = try APNSOptions.configuration(arguments)
        if let host = arguments.value("broadcast-host") { configuration.environment.broadcastHost = host }
        let now = Date()
        let built = try PayloadBuilder.build(arguments, event: event, now: now)
        let (_, warnings) = try PayloadBuilder.check(built, target: .broadcast, now: now)
        for warning in warnings { Console.err("\(warning)") }
        let client = APNSClient(configuration: configuration)
        let result = await client.broadcast(built.request, channelID: channelID, bundleID: bundleID, requestID: requestID)
        await client.shutdown()
        return APNSOptions.report(result, target: "channel \(channelID)")
    }
}
