import Foundation

/// Where a connection goes: host, port, trust and client identity.
struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    var host: String
    var port: Int
    var caFile: String?
    var certificate: (certFile: String, keyFile: String)?

    static func == (a: Endpoint, b: Endpoint) -> Bool {
        a.host == b.host && a.port == b.port && a.caFile == b.caFile && a.certificate?.certFile == b.certificate?.certFile
            && a.certificate?.keyFile == b.certificate?.keyFile
    }
    func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
    }
    var description: String { "\(host):\(port)" }
}

/// One request as the transport sends it.
struct WireRequest: Sendable {
    var method: String
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// False for paths no other request repeats (a device token's): HPACK keeps them out of its table.
    var indexesPath = true
    /// The client already checked every byte of the path and header values (device pushes).
    var isChecked = false
}

/// One complete response.
struct WireResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// A transport failure, sorted by what the client may do about it.
struct WireError: Error, Sendable {
    enum Kind: Sendable, Equatable {
        /// The server certainly did not process it (REFUSED_STREAM, above GOAWAY's last stream id, never sent).
        case notProcessed
        /// The deadline passed; the server may have processed it.
        case deadline
        /// The connection broke mid-stream; the server may have processed it.
        case lost
        /// Connecting failed in a way retrying may fix (refused, timeout, reset).
        case connectTransient
        /// Connecting failed in a way retrying cannot fix (certificate verification, ALPN, bad files).
        case connectPermanent
        /// The connection was closed by us.
        case closed
        /// The caller cancelled the push before it was sent.
        case cancelled
    }

    var kind: Kind
    var message: String
}

/// One HTTP/2 connection, as the pool sees it.
protocol PushConnection: AnyObject, Sendable {
    /// Sends and waits for the complete response or `timeout`.
    func send(_ request: WireRequest, timeout: Duration) async throws(WireError) -> WireResponse
    /// Sends and calls `completion` once with the response or failure; it must not block.
    func send(_ request: WireRequest, timeout: Duration, completion: @escaping @Sendable (Result<WireResponse, WireError>) -> Void)
    /// False once GOAWAY arrived, the socket broke or `close` began: take no new requests.
    var isUsable: Bool { get }
    /// Closes after in-flight requests finish or `grace` passes.
    func close(grace: Duration) async
}

extension PushConnection {
    /// The callback form through the async one (a task per request; transports override it).
    func send(_ request: WireRequest, timeout: Duration, completion: @escaping @Sendable (Result<WireResponse, WireError>) -> Void) {
        Task {
            do throws(WireError) {
                completion(.success(try await send(request, timeout: timeout)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}

/// Opens connections.
protocol PushConnector: Sendable {
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection
}
