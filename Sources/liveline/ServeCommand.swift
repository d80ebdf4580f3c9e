import Foundation
import LivelineCommandLine
import LivelineServiceDashboard
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
            .init(name: "apns-sandbox-host", valueName: "HOST:PORT", help: "Send pushes to sandbox tokens here (a simulator's sandbox listener); default --apns-host, else Apple's sandbox host."),
            .init(name: "apns-production-host", valueName: "HOST:PORT", help: "Send pushes to production tokens here; default --apns-host, else Apple's production host."),
            .init(name: "push-to-start-token-max-unseen-days", valueName: "DAYS", help: "Skip a push-to-start token the app has not registered or re-reported for DAYS (fractions allowed; 0: never; default 30)."),
            .init(name: "webhook-url", valueName: "URL", help: "Where interactions are delivered (POST, signed with LIVELINE_WEBHOOK_SECRET, required; https unless loopback)."),
            .init(name: "admin-key-file", valueName: "FILE", help: "Write the first admin key to FILE (mode 0600) instead of standard error."),
            .init(name: "kek-file", valueName: "FILE", help: "Key-encryption key (32 bytes as 64 hex digits or base64) that encrypts the apps' .p8 keys at rest; or LIVELINE_KEK."),
            .init(name: "admin-listen", valueName: "HOST:PORT", help: "Serve the admin routes only on this second listener (the public one keeps the app routes)."),
            .init(name: "tls-cert", valueName: "FILE", help: "PEM certificate (and chain): serve HTTPS on both listeners; with --tls-key."),
            .init(name: "tls-key", valueName: "FILE", help: "PEM private key of --tls-cert."),
            .init(name: "start-shown-within", valueName: "SECONDS", help: "A push-to-start APNs accepted with no update token or receipt after this long is reported as never shown (start-never-shown; default 120)."),
            .init(name: "renewal-margin", valueName: "SECONDS", help: "How long before ActivityKit's 8 hours an activity started with \"renew\": true gets its successor (60 to 14400; default 900)."),
            .init(name: "dashboard", valueName: nil, help: "Also serve a live page of the activities, their tokens (as prefixes) and each delivery's state on loopback; prints its URL."),
            .init(name: "dashboard-port", valueName: "N", help: "The page's port on 127.0.0.1; 0 picks a free one (default 2199)."),
            .init(name: "simulator-dashboard", valueName: "URL", help: "With --dashboard: the dashboard of the simulator the service sends to, linked from the page."),
        ],
        discussion: """
        Settings come from the configuration file, then LIVELINE_* environment variables
        (LIVELINE_PORT, LIVELINE_DATABASE, LIVELINE_APNS_HOST, LIVELINE_WEBHOOK_SECRET, ...), then flags.
        File and environment names: \(ServiceConfiguration.settingNames.joined(separator: ", ")).

        On the first start the service makes an admin key, once per database (several PostgreSQL
        instances starting together make one), and writes it to --admin-key-file (mode 0600) or
        else to standard error, never to standard output; keep it. Keys go in
        'Authorization: Bearer <key>'; list, revoke and rotate them with /v1/keys.
        With --kek-file (or LIVELINE_KEK) the apps' .p8 keys are stored encrypted (AES-256-GCM);
        without it they are stored in plain text and every start warns. Once encrypted, starting
        without that key-encryption key, or with another, is refused. --tls-cert and --tls-key
        serve HTTPS; --admin-listen moves the admin routes to a second listener. SIGINT or SIGTERM stops it cleanly: running requests answer,
        pushes on the wire are recorded, and anything not yet sent stays queued in the database.
        The API is described at /openapi.json; /healthz and /metrics need no key.

        --dashboard serves a read-only page (docs/dashboard.md, "The service's page") that follows each
        logical activity the service changes while it runs: sends accepted, tokens registered or
        deleted, verdicts recorded, pushed to the page as server-sent events. It listens on
        127.0.0.1 only, answers only to its exact host names, and needs the access token in the URL
        it prints (kept in a cookie); it shows no key and tokens only as 8-character prefixes.
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        var configuration = ServiceConfiguration()
        do {
            if let file = arguments.value("config") { try configuration.apply(file: file) }
            try configuration.apply(environment: ProcessInfo.processInfo.environment)
            let flags = [("host", "host"), ("port", "port"), ("database", "database"), ("apns-host", "apnsHost"), ("ca-file", "caFile"), ("webhook-url", "webhookURL"),
                         ("admin-key-file", "adminKeyFile"), ("kek-file", "kekFile"), ("admin-listen", "adminListen"),
                         ("tls-cert", "tlsCertFile"), ("tls-key", "tlsKeyFile"),
                         ("apns-sandbox-host", "apnsSandboxHost"), ("apns-production-host", "apnsProductionHost"),
                         ("push-to-start-token-max-unseen-days", "pushToStartTokenMaxUnseenDays"), ("start-shown-within", "startShownWithinSeconds"),
                         ("renewal-margin", "renewalMarginSeconds")]
            for (flag, setting) in flags {
                if let value = arguments.value(flag) { try configuration.set(setting, value, source: "--\(flag)") }
            }
        } catch {
            throw UsageError(message: error.message, helpPath: spec.path)
        }
        if let ca = configuration.caFile, !FileManager.default.isReadableFile(atPath: ca) {
            throw CLIError(message: "cannot read the CA file '\(ca)'")
        }
        if configuration.caFile != nil && configuration.apnsHost == nil && configuration.apnsSandboxHost == nil && configuration.apnsProductionHost == nil {
            throw UsageError(message: "'--ca-file' goes with '--apns-host' (Apple's hosts are verified with the system's CAs)", helpPath: spec.path)
        }
        let dashboardOptions = try dashboardOptions(arguments)
        let server: ServiceServer
        do {
            server = try ServiceServer.start(configuration) { Console.err($0) }
        } catch {
            throw CLIError(message: "cannot start the service: \(error)")
        }
        var text = "Liveline service listening on \(server.url)\n"
        if let admin = server.adminURL { text += "Admin API: \(admin) (the admin routes are served only there)\n" }
        if server.store is PostgresStore {
            text += "Database: \(server.store.location) (PostgreSQL)\n"  // the password shown as ***
        } else {
            text += "Database: \(absolute(configuration.database)) (SQLite, WAL)\n"
        }
        text += "APNs: \(configuration.apnsHost.map { "\($0) (CA file \(configuration.caFile ?? "system"))" } ?? "Apple's hosts, per app environment")\n"
        for (name, host) in [("sandbox", configuration.apnsSandboxHost), ("production", configuration.apnsProductionHost)] {
            if let host { text += "APNs \(name) tokens: \(host)\n" }
        }
        var dashboard: ServiceDashboard?
        if let options = dashboardOptions {
            do {
                dashboard = try ServiceDashboard.start(service: server.service, port: options.port, simulatorDashboard: options.simulator)
            } catch {
                await server.stop()
                throw CLIError(message: "cannot start the dashboard: \(error.message)")
            }
        }
        if let dashboard {
            text += "Dashboard: \(dashboard.accessURL)\n"
        }
        if let key = server.firstAdminKey {
            // Never on standard output (it is often a log that others read): a 0600 file, or standard error.
            if let file = configuration.adminKeyFile {
                text += "Admin key: written to \(file) (mode 0600; shown once, keep it)\n"
            } else {
                Console.err("Admin key (shown once, keep it): \(key)")
                text += "Admin key: printed once on standard error\n"
            }
        }
        text += "API: \(server.url)/openapi.json\nReady."
        SignalWaiter.shared.install()  // a SIGTERM right after "Ready." stops it cleanly
        Console.out(text)
        await SimulatorCommand.waitForTermination()
        Console.err("stopping: finishing requests and pushes in flight")
        await dashboard?.stop()
        await server.stop()
        Console.err("service stopped")
        return 0
    }

    /// `--dashboard` and its options; nil without it (its options alone are a usage error).
    static func dashboardOptions(_ arguments: Arguments) throws(UsageError) -> (port: Int, simulator: URL?)? {
        guard arguments.flag("dashboard") else {
            for name in ["dashboard-port", "simulator-dashboard"] where arguments.value(name) != nil {
                throw arguments.usageError("'--\(name)' needs '--dashboard'")
            }
            return nil
        }
        let port = try arguments.int("dashboard-port") ?? 2199
        guard (0...65535).contains(port) else { throw arguments.usageError("'--dashboard-port' must be 0 to 65535, got \(port)") }
        var simulator: URL?
        if let text = arguments.value("simulator-dashboard") {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty else {
                throw arguments.usageError("'--simulator-dashboard' must be an http:// or https:// URL, got '\(text.prefix(200))'")
            }
            simulator = url
        }
        return (port, simulator)
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") || path == ":memory:" ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
