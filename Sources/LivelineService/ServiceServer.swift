import Foundation
import LivelineHTTPServer
import LivelineStore

/// `liveline serve` in a value: the store, the service and its HTTP server, started together.
public final class ServiceServer: Sendable {
    public let service: Service
    let http: HTTPServer
    /// The admin listener (`adminListen`), when there is one.
    let adminHTTP: HTTPServer?
    public let store: any Store
    /// The first admin key, when this start made it (shown once).
    public let firstAdminKey: String?

    public var url: String { http.url }
    public var port: Int { http.port }
    /// The admin listener's URL (`adminListen`), when there is one.
    public var adminURL: String? { adminHTTP?.url }

    /// Opens the database, makes the first admin key if there is none, starts the outbox
    /// workers and listens.
    public static func start(_ configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) throws -> ServiceServer {
        try start(configuration, store: try openStore(database: configuration.database), log: log)
    }

    /// `start` on a store the caller opened (`configuration.database` is not read): tests wrap a
    /// real store to inject faults. The server owns it from here and closes it at `stop()`.
    public static func start(_ configuration: ServiceConfiguration, store: any Store, log: @escaping @Sendable (String) -> Void) throws -> ServiceServer {
        do {
            let service = try Service(store: store, configuration: configuration, log: log)
            let keys = try service.vault.prepare(store)
            if keys.sealed > 0 { log("apps: encrypted \(keys.sealed) stored .p8 keys with \(service.vault.source)") }
            if service.vault.box == nil {
                log("warning: no key-encryption key (--kek-file or LIVELINE_KEK): the apps' .p8 keys are stored unencrypted" + (keys.plain > 0 ? " (\(keys.plain) now)" : ""))
            }
            let adminKey = try service.bootstrapAdminKey { key in
                if let file = configuration.adminKeyFile { try writeSecretFile(file, key + "\n") }
            }
            if store.isShared, !store.observeKeyChanges({ service.keys.invalidate(); service.installations.invalidate() }) {
                log("keys: cannot LISTEN for other instances' revocations; a revoked key may work here for up to \(configuration.keyCacheTTL), a replaced installation secret for up to \(service.installations.cacheLifetime)")
            }
            var http = HTTPServerConfiguration()
            http.host = configuration.host
            http.port = configuration.port
            http.maxBodyBytes = configuration.maxBodyBytes
            http.threads = configuration.threads
            switch (configuration.tlsCertFile, configuration.tlsKeyFile) {
            case (let cert?, let key?): http.tls = HTTPServerTLS(certificateFile: cert, privateKeyFile: key)
            case (nil, nil): break
            default: throw ServiceConfiguration.Problem(message: "tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together: give both, or neither for plain HTTP behind a proxy")
            }
            var adminHTTP: HTTPServer?
            if let listen = configuration.adminListen, let colon = listen.lastIndex(of: ":") {
                var admin = http
                admin.host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                admin.port = Int(listen[listen.index(after: colon)...]) ?? 0
                adminHTTP = try HTTPServer.start(admin) { request in await service.handle(request, on: .admin) }
            }
            let server: HTTPServer
            do {
                let listener: Service.Listener = adminHTTP == nil ? .all : .public
                server = try HTTPServer.start(http) { request in await service.handle(request, on: listener) }
            } catch {
                if let adminHTTP { Task { await adminHTTP.stop(grace: .zero) } }
                throw error
            }
            try service.startWorkers()
            if store.isShared, !store.observeSharedWork({ service.dispatcher.wake() }) {
                log("outbox: cannot LISTEN for other instances' work; it is claimed at the next poll (about a second)")
            }
            return ServiceServer(service: service, http: server, adminHTTP: adminHTTP, store: store, firstAdminKey: adminKey)
        } catch {
            store.close()
            throw error
        }
    }

    init(service: Service, http: HTTPServer, adminHTTP: HTTPServer?, store: any Store, firstAdminKey: String?) {
        self.service = service
        self.http = http
        self.adminHTTP = adminHTTP
        self.store = store
        self.firstAdminKey = firstAdminKey
    }

    /// Stops taking requests, lets running ones answer, finishes the rows on the wire, closes the database.
    public func stop() async {
        await http.stop(grace: .seconds(10))
        await adminHTTP?.stop(grace: .seconds(10))
        await service.stopWorkers()
        store.close()
    }
}

/// Writes `text` to `path` readable by its owner only (0600): to a new file beside it, then
/// renamed over `path`, so no other mode, no symbolic link and no half-written file is ever there.
func writeSecretFile(_ path: String, _ text: String) throws {
    let temporary = path + ".tmp-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ServiceConfiguration.Problem(message: "cannot create '\(temporary)' for the admin key: \(String(cString: strerror(errno)))") }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written == bytes.count, synced, rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw ServiceConfiguration.Problem(message: "cannot write the admin key to '\(path)': \(reason)")
    }
}
