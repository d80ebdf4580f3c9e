import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto

/// The options every APNs command shares: credentials and where APNs is.
enum APNSOptions {
    static let credentialOptions: [CommandSpec.Option] = [
        .init(name: "key", valueName: "file", help: "The AuthKey_<KEYID>.p8 signing key (token auth)."),
        .init(name: "key-id", valueName: "id", help: "The 10-character key ID; defaults to the <KEYID> in the key's file name."),
        .init(name: "team-id", valueName: "id", help: "The 10-character developer team ID."),
        .init(name: "cert", valueName: "file", help: "A PEM client certificate (certificate auth; not for Live Activities)."),
        .init(name: "cert-key", valueName: "file", help: "The PEM private key of --cert."),
    ]
    static let environmentOptions: [CommandSpec.Option] = [
        .init(name: "environment", valueName: "name", help: "production or sandbox (default sandbox)."),
        .init(name: "port", valueName: "n", help: "443 (default) or 2197 on Apple's hosts."),
        .init(name: "host", valueName: "host:port", help: "A server of your own (e.g. the simulator) instead of Apple's."),
        .init(name: "ca-file", valueName: "file", help: "PEM CA certificates to trust for --host (verification is always on)."),
    ]

    struct TokenCredentials {
        var key: P256PrivateKey
        var keyID: String
        var teamID: String
    }

    /// Reads `--key`, `--key-id` (or the file name) and `--team-id`, checking their shapes.
    static func tokenCredentials(_ arguments: Arguments) throws -> TokenCredentials {
        let keyPath = try arguments.required("key")
        let keyID: String
        if let given = arguments.value("key-id") {
            keyID = given
        } else {
            let name = URL(fileURLWithPath: keyPath).deletingPathExtension().lastPathComponent
            guard name.hasPrefix("AuthKey_"), name.count > "AuthKey_".count else {
                throw arguments.usageError("missing '--key-id': the key file '\(keyPath)' is not named AuthKey_<KEYID>.p8")
            }
            keyID = String(name.dropFirst("AuthKey_".count))
        }
        let teamID = try arguments.required("team-id")
        try checkID(keyID, "key ID", option: "key-id", arguments)
        try checkID(teamID, "team ID", option: "team-id", arguments)
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(contentsOfFile: keyPath)
        } catch {
            throw CLIError(message: error.message)
        }
        return TokenCredentials(key: key, keyID: keyID, teamID: teamID)
    }

    /// Apple's key and team IDs are 10 letters and digits.
    static func checkID(_ id: String, _ what: String, option: String, _ arguments: Arguments) throws(UsageError) {
        guard id.count == 10, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw arguments.usageError("--\(option) '\(id)' is not a \(what): Apple's are 10 letters and digits, like ABC123DEFG")
        }
    }

    /// The authentication the options name: `--key` (token) or `--cert` + `--cert-key`.
    static func authentication(_ arguments: Arguments) throws -> APNSConfiguration.Authentication {
        if let cert = arguments.value("cert") {
            if arguments.value("key") != nil { throw arguments.usageError("give either --key (token auth) or --cert (certificate auth), not both") }
            guard let certKey = arguments.value("cert-key") else { throw arguments.usageError("--cert needs --cert-key, the certificate's PEM private key") }
            for path in [cert, certKey] where !FileManager.default.isReadableFile(atPath: path) {
                throw CLIError(message: "cannot read '\(path)': \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
            }
            return .certificate(certFile: cert, keyFile: certKey)
        }
        guard arguments.value("key") != nil else {
            throw arguments.usageError("missing credentials: give --key AuthKey_<KEYID>.p8 and --team-id (or --cert and --cert-key)")
        }
        let credentials = try tokenCredentials(arguments)
        return .token(key: credentials.key, keyID: credentials.keyID, teamID: credentials.teamID)
    }

    /// The environment the options name: `--environment` (+ `--port`) or `--host` + `--ca-file`.
    static func environment(_ arguments: Arguments) throws -> APNSConfiguration.Environment {
        if let host = arguments.value("host") {
            if arguments.value("environment") != nil { throw arguments.usageError("give either --environment or --host, not both") }
            guard let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]), (1...65535).contains(port),
                  colon != host.startIndex
            else { throw arguments.usageError("--host '\(host)' must be host:port, like 127.0.0.1:8443") }
            let caFile = arguments.value("ca-file")
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw CLIError(message: "cannot read CA file '\(caFile)': \(FileManager.default.fileExists(atPath: caFile) ? "permission denied" : "no such file")")
            }
            var name = String(host[..<colon])
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            return .custom(host: name, port: port, caFile: caFile)
        }
        if arguments.value("ca-file") != nil { throw arguments.usageError("--ca-file goes with --host; Apple's hosts use the system trust store") }
        var environment: APNSConfiguration.Environment
        switch arguments.value("environment") ?? "sandbox" {
        case "production": environment = .production
        case "sandbox", "development": environment = .sandbox
        case let other: throw arguments.usageError("--environment '\(other)' must be production or sandbox")
        }
        if let port = try arguments.int("port") {
            do { environment = try environment.onPort(port) } catch { throw arguments.usageError(error.message) }
        }
        return environment
    }
}

/// `liveline send`: sends one Live Activity push to a device token and prints APNs' verdict.
enum SendCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline send", abstract: "Send a Live Activity push to a device and print APNs' verdict.",
        usage: "[start|update|end] --token HEX --bundle-id ID --key AuthKey_<KEYID>.p8 --team-id ID [options]",
        options: [.init(name: "token", valueName: "hex", help: "The push token: a push-to-start token for start, the activity's update token otherwise.")]
            + APNSOptions.credentialOptions + APNSOptions.environmentOptions + APNSOptions.timeoutOptions + PayloadBuilder.options,
        positionals: 0...1,
        discussion: """
            The body comes from --file and/or the payload flags (the same as 'liveline payload'); the
            event defaults to the one in --file. The push is validated before anything is sent.
            \(PayloadBuilder.dateHelp)
            Prints 'accepted', 'rejected' or 'failed' with the apns-id and reason.
            Exit status: 0 accepted, 1 rejected by APNs, 2 not delivered (connection, timeout), 64 usage.

            EXAMPLE:
              liveline send update --token 80f3… --bundle-id com.example.flights \\
                --key AuthKey_ABC123DEFG.p8 --team-id DEF123GHIJ --example flight
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let event = try APNSOptions.event(arguments)
        let token = try arguments.required("token")
        guard arguments.value("bundle-id") != nil || arguments.value("topic") != nil else {
            throw arguments.usageError("missing required option '--bundle-id' (the app's bundle ID; the topic gets .push-type.liveactivity)")
        }
        let configuration = try APNSOptions.configuration(arguments)
        let now = Date()
        let built = try PayloadBuilder.build(arguments, event: event, now: now)
        let (_, warnings) = try PayloadBuilder.check(built, now: now)
        for warning in warnings { Console.err("\(warning)") }
        let client = APNSClient(configuration: configuration)
        let result = await client.send(built.request, to: token)
        await client.shutdown()
        return APNSOptions.report(result, target: "device \(token.prefix(8))…")
    }
}

extension APNSOptions {
    static let timeoutOptions: [CommandSpec.Option] = [
        .init(name: "timeout", valueName: "seconds", help: "Give up on a response after this long (default 30)."),
        .init(name: "connect-timeout", valueName: "seconds", help: "Give up connecting after this long (default 10)."),
    ]

    /// The event word, or the event of `--file` when it is omitted.
    static func event(_ arguments: Arguments) throws -> LiveActivityPush.Event {
        if let word = arguments.positionals.first {
            guard let event = LiveActivityPush.Event(rawValue: word) else {
                throw arguments.usageError("unknown event '\(word)'; expected start, update or end")
            }
            return event
        }
        guard let file = arguments.value("file") else {
            throw arguments.usageError("give the event (start, update or end) or a body with --file")
        }
        do {
            return try LiveActivityPush(body: JSONValue.parse(try readUserFile(file, what: "body file"))).event
        } catch let error as PayloadError {
            throw CLIError(message: "body file '\(file)': \(error.message)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(message: "body file '\(file)': \(error)")
        }
    }

    /// The client configuration the options describe.
    static func configuration(_ arguments: Arguments) throws -> APNSConfiguration {
        var timeouts = APNSConfiguration.Timeouts()
        if let t = try arguments.double("timeout") {
            guard t > 0 else { throw arguments.usageError("'--timeout' must be positive, got \(t)") }
            timeouts.requestDeadline = .seconds(t)
        }
        if let t = try arguments.double("connect-timeout") {
            guard t > 0 else { throw arguments.usageError("'--connect-timeout' must be positive, got \(t)") }
            timeouts.connect = .seconds(t)
        }
        timeouts.shutdownGrace = timeouts.requestDeadline
        var retries = APNSConfiguration.Retries()
        retries.maxRetries = 1
        return APNSConfiguration(
            authentication: try authentication(arguments), environment: try environment(arguments), connectionCount: 1,
            timeouts: timeouts, retries: retries)
    }

    /// Prints a verdict and returns the exit status: 0 accepted, 1 rejected, 2 failed.
    static func report(_ result: APNSResult, target: String) -> Int32 {
        switch result {
        case .accepted(let a):
            var line = "accepted: \(target) apns-id=\(a.apnsID ?? "-")"
            if let unique = a.uniqueID { line += " apns-unique-id=\(unique)" }
            Console.out(line)
            return 0
        case .rejected(let r):
            var line = "rejected: \(r.status) \(r.reason) \(target) apns-id=\(r.apnsID ?? "-")"
            if let ms = r.timestampMilliseconds { line += " timestamp=\(ms)" }
            Console.out(line)
            if let meaning = r.reason.entry?.meaning { Console.err("\(r.reason): \(meaning) (retry: \(r.policy))") }
            return 1
        case .failed(let e):
            Console.out("failed: \(e.code) \(target)")
            Console.err("error: \(e.message)")
            return 2
        }
    }
}
