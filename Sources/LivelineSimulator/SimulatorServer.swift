import Foundation
import LivelineCore
import LivelineHTTP2
import Synchronization

/// The simulator on the network: an HTTP/2 + TLS server that answers like APNs (device pushes,
/// broadcasts, channel management, all on one port) and serves the inspection API
/// (`GET /simulator/v1/status|devices|activities|log`).
///
/// Token connections start at one stream until their first valid push; the simulator's
/// connection actions (SETTINGS changes, GOAWAY with a JSON reason, drops, resets, latency) are
/// carried out on the real connection.
///
/// Threading: the HTTP/2 server's loop thread does the I/O (TLS, framing); every request is
/// handled on the server's worker thread (`HTTP2ServerExecution.worker`, 8 MiB of stack): JSON,
/// ES256, brotli and Voltra decoding and the state change all run there, and the answer with
/// its connection actions goes back to the loop in order.
public final class SimulatorServer: Sendable {
    /// The simulator it serves (inspect or drive it in-process too).
    public let simulator: Simulator
    /// The address it listens on.
    public let host: String
    /// The port (the chosen one when started with port 0).
    public let port: Int
    /// The CA file clients must trust.
    public let caFile: String
    private let server: HTTP2Server
    /// Each open connection and what APNs remembers about it.
    private let connections: Box<Mutex<[UInt64: ConnectionSlot]>>

    private init(simulator: Simulator, server: HTTP2Server, caFile: String, connections: Box<Mutex<[UInt64: ConnectionSlot]>>) {
        self.simulator = simulator
        self.server = server
        self.host = server.host
        self.port = server.port
        self.caFile = caFile
        self.connections = connections
    }

    /// `https://host:port`.
    public var url: String { "https://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Starts serving `simulator`.
    ///
    /// - Parameters:
    ///   - certificates: the server certificate and the CA clients trust (`SimulatorCertificates.prepare(in:)`).
    ///   - clientCAFile: when set, client certificates signed by it select certificate authentication
    ///     (topic = the certificate's UID).
    ///   - inspectionToken: when set, `GET /simulator/v1/...` answers 401 unless the request carries
    ///     `authorization: Bearer <token>` (`makeInspectionToken()`). Needed beyond loopback: the API shows full tokens.
    ///   - environment: the APNs host this listener plays (`nil`: the simulator's environment). Start a
    ///     second server on the same simulator with the other environment to have both hosts: each
    ///     answers a token of the other environment with 400 `BadDeviceToken`, as APNs does.
    /// - Throws: `HTTP2Error` when the address cannot be bound or the files are unusable.
    public static func start(
        simulator: Simulator, certificates: SimulatorCertificates, host: String = "127.0.0.1", port: Int = 0,
        maxConcurrentStreams: Int = 1000, clientCAFile: String? = nil, inspectionToken: String? = nil,
        environment: APNSEnvironment? = nil
    ) throws(HTTP2Error) -> SimulatorServer {
        // Written by the loop thread (open, close), read by the worker and by readers; only
        // touched under the mutex, for a lookup.
        let table = Box(Mutex<[UInt64: ConnectionSlot]>([:]))
        // The simulator answers the first request after its own idle time with IdleTimeout, as
        // APNs does; the transport closes a silent connection only later, so that answer is seen.
        let simulatorIdle = simulator.state.withLock { $0.config.idleTimeout }
        let configuration = HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: certificates.certificateFile, keyFile: certificates.keyFile),
            host: host, port: port, maxConcurrentStreams: maxConcurrentStreams, clientCAFile: clientCAFile,
            idleTimeout: .seconds(max(300, simulatorIdle + 60)),
            // APNs speaks HTTP/2 to TLS clients that offer no ALPN (aioapns 2.2 and older Pushy rely on it).
            acceptsClientsWithoutALPN: true,
            execution: .worker)
        let server = try HTTP2Server.start(
            configuration: configuration,
            onConnection: { connection in
                let auth = Self.authentication(for: connection, simulator: simulator)
                var state = simulator.newConnection(authentication: auth)
                state.environment = environment
                if state.maxConcurrentStreams != maxConcurrentStreams { connection.setMaxConcurrentStreams(state.maxConcurrentStreams) }
                table.value.withLock { t in t[connection.id] = ConnectionSlot(connection: connection, state: state) }
                // Registered after the entry exists, so a connection that closed already removes it at once.
                let id = connection.id
                connection.whenClosed { table.value.withLock { t in _ = t.removeValue(forKey: id) } }
            },
            handler: { request, responder in
                Self.handle(request, responder: responder, simulator: simulator, table: table.value, inspectionToken: inspectionToken, environment: environment)
            })
        return SimulatorServer(simulator: simulator, server: server, caFile: certificates.caFile, connections: table)
    }

    /// How many connections the server keeps state for (an entry is removed when its connection closes).
    var trackedConnections: Int { connections.value.withLock { $0.count } }

    /// The state of every connection opened so far that is still open.
    public var connectionStates: [ConnectionState] {
        let slots = connections.value.withLock { t in t.values.filter { $0.connection.isOpen }.sorted { $0.connection.id < $1.connection.id } }
        return slots.map { slot in slot.state.withLock { $0 } }
    }

    /// Stops serving: GOAWAY to every connection, then close.
    public func stop() async { await server.stop() }

    private static func authentication(for connection: HTTP2ServerConnection, simulator: Simulator) -> ConnectionState.Authentication {
        guard let cert = connection.peerCertificate, let uid = cert.userID else { return .token }
        let environment: APNSEnvironment = cert.commonName?.contains("Development") == true || cert.commonName?.contains("Sandbox") == true ? .sandbox : simulator.environment
        return .certificate(bundleID: uid, environment: environment, valid: true)
    }

    /// Answers one request on the server's worker thread (a connection's requests one at a time,
    /// in order), then carries out its connection actions.
    static func handle(_ request: HTTP2ServerRequest, responder: HTTP2ServerResponder,
                       simulator: Simulator, table: borrowing Mutex<[UInt64: ConnectionSlot]>,
                       inspectionToken: String? = nil, environment: APNSEnvironment? = nil) {
        if request.path.hasPrefix("/simulator/") {
            respondToInspection(request, responder: responder, simulator: simulator, token: inspectionToken)
            return
        }
        var requestHeaders: [SimulatorRequest.Header] = []
        requestHeaders.reserveCapacity(request.headers.count)
        for field in request.headers.fields { requestHeaders.append(SimulatorRequest.Header(field.name, field.value)) }
        let simRequest = SimulatorRequest(method: request.method, path: request.path, authority: request.authority, headers: requestHeaders, body: request.body)
        let id = request.connection.id
        var slot = table.withLock { $0[id] }
        if slot == nil, request.connection.isOpen {
            // Not tracked yet (opened before the hook ran): tracked from now on. A closed
            // connection gets a state for this request only.
            var opened = simulator.newConnection()
            opened.environment = environment
            let fresh = ConnectionSlot(connection: request.connection, state: opened)
            slot = table.withLock { t in
                if let existing = t[id] { return existing }
                t[id] = fresh
                return fresh
            }
        }
        let response: SimulatorResponse
        if let slot {
            // Only this connection's worker changes its state, so a copy taken here is current;
            // no lock is held while the simulator works.
            var state = slot.state.withLock { $0 }
            response = simulator.handle(simRequest, connection: &state)
            slot.state.withLock { [state] in $0 = state }
        } else {
            var state = simulator.newConnection()
            state.environment = environment
            response = simulator.handle(simRequest, connection: &state)
        }

        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(response.headers.count)
        for h in response.headers { fields.append((name: h.name, value: h.value)) }
        let headers = HTTP2Headers(fields)
        let delay: Duration? = response.delay > 0 ? .milliseconds(Int64(response.delay * 1000)) : nil
        var goAway: [UInt8]?
        for action in response.actions {
            switch action {
            case .drop:
                request.connection.drop()
                return
            case .resetStream(let code):
                responder.reset(errorCode: code)
                return
            case .setMaxConcurrentStreams(let n):
                request.connection.setMaxConcurrentStreams(n)
            case .goAway(let debug):
                goAway = debug
            }
        }
        responder.respond(status: response.status, headers: headers, body: response.body, after: delay)
        if let goAway {
            request.connection.goAway(lastStreamID: request.streamID, errorCode: 0, debugData: goAway)
        }
    }
}

/// One open connection and what APNs remembers about it. The state is changed only on the
/// connection's worker; its mutex lets readers (`connectionStates`) take a consistent copy.
final class ConnectionSlot: Sendable {
    let connection: HTTP2ServerConnection
    let state: Mutex<ConnectionState>

    init(connection: HTTP2ServerConnection, state: ConnectionState) {
        self.connection = connection
        self.state = Mutex(state)
    }
}

/// Carries a non-copyable value into escaping closures; the value is only used through its own
/// synchronisation (a `Mutex`).
final class Box<T: ~Copyable>: Sendable where T: Sendable {
    let value: T
    init(_ value: consuming T) { self.value = value }
}
