import Foundation
import LivelineHTTPServer
import LivelineStore

/// `liveline serve` in a value: the store, the service and its HTTP server, started together.
public final class ServiceServer: Sendable {
    public let service: Service
    let http: HTTPServer
    public let store: any Store
    /// The first admin key, when this start made it (shown once).
    public let firstAdminKey: String?

    public var url: String { http.url }
    public var port: Int { http.port }

    /// Opens the database, makes the first admin key if there is none, starts the outbox
    /// workers and listens.
    public static func start(_ configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) throws -> ServiceServer {
        let store = try openStore(database: configuration.database)
        do {
            let service = try Service(store: store, configuration: configuration, log: log)
            let adminKey = try service.bootstrapAdminKey()
            var http = HTTPServerConfiguration()
            http.host = configuration.host
            http.port = configuration.port
            http.maxBodyBytes = configuration.maxBodyBytes
            http.threads = configuration.threads
            let server = try HTTPServer.start(http) { request in await service.handle(request) }
            try service.startWorkers()
            if store.isShared, !store.observeSharedWork({ service.dispatcher.wake() }) {
                log("outbox: cannot LISTEN for other instances' work; it is claimed at the next poll (about a second)")
            }
            return ServiceServer(service: service, http: server, store: store, firstAdminKey: adminKey)
        } catch {
            store.close()
            throw error
        }
    }

    init(service: Service, http: HTTPServer, store: any Store, firstAdminKey: String?) {
        self.service = service
        self.http = http
        self.store = store
        self.firstAdminKey = firstAdminKey
    }

    /// Stops taking requests, lets running ones answer, finishes the rows on the wire, closes the database.
    public func stop() async {
        await http.stop(grace: .seconds(10))
        await service.stopWorkers()
        store.close()
    }
}
