import Foundation
import LivelineService
import LivelineStore

/// `liveline serve`: the service (token registry, fan-out, durable outbox) on HTTP.
enum ServeCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline serve", abstract: "Run the Liveline service: token registry, fan-out by activity id, durable delivery.",
        usage: "[--config FILE] [options]",
        options: [
            .init(name: "config", valueName: "FILE", help: "JSON configuration file (settings listed below)."),
            .init(name: "host", valueName: "ADDRESS", help: "Address to listen on (default 127.0.0.1)."),
            .init(name: "port", valueName: "N", help: "Port to listen on; 0 picks a free one (default 8080)."),
            .init(name: "database", valueName: "FILE|URL", help: "SQLite database file, or postgres://… for PostgreSQL (default liveline.db)."),
            .init(name: "apns-host", valueName: "HOST:PORT", help: "Send every app's pushes here (a simulator) instead of Apple's hosts."),
            .init(name: "ca-file", valueName: "FILE", help: "CA certificates that sign --apns-host's certificate (verification stays on)."),
            .init(name: "webhook-url", valueName: "URL", help: "Where interactions are delivered (POST, signed with --webhook-secret)."),
        ],
        discussion: """
        Settings come from the configuration file, then LIVELINE_* environment variables
        (LIVELINE_PORT, LIVELINE_DATABASE, LIVELINE_APNS_HOST, LIVELINE_WEBHOOK_SECRET, ...), then flags.
        File and environment names: \(ServiceConfiguration.settingNames.joined(separator: ", ")).

        On the first start the service makes an admin key and prints it once; keep it. Keys go in
        'Authorization: Bearer <key>'. SIGINT or SIGTERM stops it cleanly: running requests answer,
        pushes on the wire are recorded, and anything not yet sent stays queued in the database.
        The API is described at /openapi.json; /healthz and /metrics need no key.
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        var configuration = ServiceConfiguration()
        do {
            if let file = arguments.value("config") { try configuration.apply(file: file) }
            try configuration.apply(environment: ProcessInfo.processInfo.environment)
            let flags = [("host", "host"), ("port", "port"), ("database", "database"), ("apns-host", "apnsHost"), ("ca-file", "caFile"), ("webhook-url", "webhookURL")]
            for (flag, setting) in flags {
                if let value = arguments.value(flag) { try configuration.set(setting, value, source: "--\(flag)") }
            }
        } catch {
            throw UsageError(message: error.message, helpPath: spec.path)
        }
        if let ca = configuration.caFile, !FileManager.default.isReadableFile(atPath: ca) {
            throw CLIError(message: "cannot read the CA file '\(ca)'")
        }
        if configuration.caFile != nil && configuration.apnsHost == nil {
            throw UsageError(message: "'--ca-file' goes with '--apns-host' (Apple's hosts are verified with the system's CAs)", helpPath: spec.path)
        }
        let server: ServiceServer
        do {
            server = try ServiceServer.start(configuration) { Console.err($0) }
        } catch {
            throw CLIError(message: "cannot start the service: \(error)")
        }
        var text = "Liveline service listening on \(server.url)\n"
        if server.store is PostgresStore {
            text += "Database: \(server.store.location) (PostgreSQL)\n"  // the password shown as ***
        } else {
            text += "Database: \(absolute(configuration.database)) (SQLite, WAL)\n"
        }
        text += "APNs: \(configuration.apnsHost.map { "\($0) (CA file \(configuration.caFile ?? "system"))" } ?? "Apple's hosts, per app environment")\n"
        if let key = server.firstAdminKey {
            text += "Admin key (shown once, keep it): \(key)\n"
        }
        text += "API: \(server.url)/openapi.json\nReady."
        SignalWaiter.shared.install()  // a SIGTERM right after "Ready." stops it cleanly
        Console.out(text)
        await SimulatorCommand.waitForTermination()
        Console.err("stopping: finishing requests and pushes in flight")
        await server.stop()
        Console.err("service stopped")
        return 0
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") || path == ":memory:" ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
