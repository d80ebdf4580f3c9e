// Every type a product's public API takes from another module, named here the way a user's package
// names it: through the products it depends on, never through an internal module. None of these
// functions runs; this file only has to compile (docs/architecture.md, "Public API").
import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineHTTPServer
import LivelineKit
import LivelineKitSimulator
import LivelinePostgres
import LivelinePreview
import LivelineProcess
import LivelineSQL
import LivelineSQLite
import LivelineService
import LivelineServiceDashboard
import LivelineSimulator
import LivelineSimulatorDashboard
import LivelineStore
import LivelineTesting
import LivelineUI

/// LivelineAPNS takes LivelineCrypto's key (and its `KeyError`) and LivelineCore's request and reason.
func apnsClient(keyFile: String) throws(KeyError) -> APNSClient {
    let key: P256PrivateKey = try P256PrivateKey(contentsOfFile: keyFile)
    return APNSClient(configuration: APNSConfiguration(
        authentication: .token(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ"), environment: .sandbox))
}

func send(_ request: PushRequest, to token: String, with client: APNSClient) async -> APNSReason? {
    if case .rejected(let rejection) = await client.send(request, to: token) { return rejection.reason }
    return nil
}

/// LivelineSimulator takes LivelineCrypto's public key and throws LivelineHTTP2's error, which it
/// re-exports: the consumer names `HTTP2Error` and its codes without importing LivelineHTTP2.
func simulator(publicKey: P256PublicKey) -> Simulator {
    var configuration = SimulatorConfiguration()
    configuration.keys = [ProviderKey(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: publicKey)]
    return Simulator(configuration: configuration)
}

/// The server, or the transport's reason it could not start.
func startServer(_ simulator: Simulator, directory: String) throws(SimulatorError) -> Result<SimulatorServer, HTTP2Error> {
    let certificates = try SimulatorCertificates.prepare(in: directory)
    do {
        return .success(try SimulatorServer.start(simulator: simulator, certificates: certificates))
    } catch {
        return .failure(error)
    }
}

func couldNotListen(_ error: HTTP2Error) -> Bool { error.code == HTTP2Error.Code.listenFailed }

/// LivelineSQLite's and LivelinePostgres's values, rows and migrations are LivelineSQL's, under either name.
func sharedSQL(_ sqlite: SQLiteDatabase, _ postgres: PostgresConnection) throws -> [SQLRow] {
    let connections: [any SQLConnection] = [sqlite, postgres]
    let value: SQLiteValue = SQLValue.text("a")
    let migration: PostgresMigration = SQLMigration("1-a", "SELECT 1")
    _ = try connections[1].applyMigrations([migration])
    let row: PostgresRow? = try connections[0].queryOne("SELECT $1 AS a", [value])
    return row.map { [$0] } ?? []
}

/// LivelineStore takes LivelineSQLite's and LivelinePostgres's options.
func stores(path: String, url: String) throws(StoreError) -> [any Store] {
    let synchronous: SQLiteDatabase.Options.Synchronous = .full
    var options = PostgresConnection.Options()
    options.applicationName = "consumer"
    return [try SQLiteStore(path: path, synchronous: synchronous), try PostgresStore(url: url, options: options)]
}

/// LivelineService takes LivelineStore's store and records and answers LivelineHTTPServer's requests.
func serve(_ request: HTTPRequest, store: any Store) async throws -> HTTPResponse {
    let service = try Service(store: store, configuration: ServiceConfiguration(), log: { _ in })
    return await service.handle(request)
}

func adminKey() -> APIKeyRecord { KeyAuthority.make(scope: KeyScope.admin, name: nil, now: Date()).record }

/// LivelineTesting hands out LivelinePostgres's connection.
func adminConnection() throws -> PostgresConnection { try TestPostgres.admin() }

/// LivelineTesting's bounded waits extend LivelineProcess's running program.
func serverOutput(_ executable: String) async throws -> String {
    let server: RunningProcess = try RunningProcess.start(executable, ["serve"])
    return try await server.output(containing: "Ready.", within: .seconds(30))
}

/// LivelineSimulatorDashboard takes the simulator's control, LivelineServiceDashboard the service; both throw LivelineHTTPServer's error.
func dashboards(_ simulator: Simulator, _ service: Service) throws(HTTPServerError) -> (Dashboard, ServiceDashboard) {
    let control: SimulatorControl = SimulatorControl(simulator: simulator)
    return (try Dashboard.start(control: control), try ServiceDashboard.start(service: service))
}

/// LivelineKitSimulator takes LivelineKit's registration, client, coordinator and uploader, and the simulator.
func phoneApp(_ simulator: Simulator, service: URL, directory: URL) async throws -> (TokenUploader, TokenUploader.DrainReport) {
    let device = DeviceRegistration(deviceID: "iphone-1", bundleID: "com.example.flights", iosVersion: "18.2")
    let app = try SimulatedPhoneApp(
        device: device, attributesTypes: ["FlightAttributes"], client: LivelineAppClient(baseURL: service, appKey: "ll_app_key"),
        directory: directory, configure: { (configuration: inout LiveActivityCoordinator.Configuration) in configuration.device = device })
    return (await app.uploader, await app.launch(simulator))
}

/// LivelinePreview takes LivelineUI's layout, regions, elements and decoded payloads.
func previewLines(_ layout: UILayout, _ decoded: DecodedUI, _ element: UIElement) -> [String] {
    let preview = UIPreview(width: 44, now: Date(), timeZone: TimeZone(secondsFromGMT: 0)!)
    return preview.lines(Region.lockScreen, of: layout) + [preview.text(decoded)] + preview.lines(element, width: 20)
}
