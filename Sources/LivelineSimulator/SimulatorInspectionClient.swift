import Foundation
import LivelineCore
import LivelineHTTP2

/// Reads a running simulator's inspection API over HTTP/2 + TLS, trusting its CA file.
public enum SimulatorInspectionClient {
    /// Where a running simulator announced itself: `<state dir>/simulator.json`.
    public struct Endpoint: Sendable, Hashable {
        /// The address.
        public var host: String
        /// The port.
        public var port: Int
        /// The CA file to trust.
        public var caFile: String
        /// The bearer token the inspection API asks for, when the simulator listens beyond loopback.
        public var inspectionToken: String?
        /// An endpoint from its parts.
        public init(host: String, port: Int, caFile: String, inspectionToken: String? = nil) {
            self.host = host
            self.port = port
            self.caFile = caFile
            self.inspectionToken = inspectionToken
        }

        /// The file a running `liveline simulator` writes in its state directory.
        public static func fileName(inStateDirectory directory: String) -> String { directory + "/simulator.json" }

        /// Reads the endpoint file.
        /// - Throws: `SimulatorError(.invalidConfiguration)` when it is missing or malformed.
        public init(stateDirectory directory: String) throws(SimulatorError) {
            let path = Self.fileName(inStateDirectory: directory)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SimulatorError(.invalidConfiguration, "no running simulator found: \(path) does not exist (start one with 'liveline simulator', or pass --url and --ca-file)")
            }
            guard let json = try? JSONValue.parse(Array(data)), let host = json["host"]?.stringValue, let port = json["port"]?.numberValue,
                let ca = json["caFile"]?.stringValue
            else { throw SimulatorError(.invalidConfiguration, "\(path) is not a simulator endpoint file (expected host, port, caFile)") }
            self.init(host: host, port: Int(port), caFile: ca, inspectionToken: json["inspectionToken"]?.stringValue)
        }

        /// The endpoint file's JSON.
        public var json: JSONValue {
            var o: JSONObject = ["host": .string(host), "port": .number(Double(port)), "caFile": .string(caFile)]
            if let inspectionToken { o["inspectionToken"] = .string(inspectionToken) }
            return .object(o)
        }

        /// Writes the endpoint file, readable by its owner only (mode 0600: it may hold the inspection token).
        /// - Throws: `SimulatorError(.invalidConfiguration)` when the file cannot be written.
        public func write(stateDirectory directory: String) throws(SimulatorError) {
            let path = Self.fileName(inStateDirectory: directory)
            try? FileManager.default.removeItem(atPath: path)
            guard FileManager.default.createFile(atPath: path, contents: Data(json.prettyPrinted().utf8), attributes: [.posixPermissions: 0o600]) else {
                throw SimulatorError(.invalidConfiguration, "cannot write the endpoint file \(path)")
            }
            do { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) } catch {
                throw SimulatorError(.invalidConfiguration, "cannot make \(path) private (mode 0600): \(error.localizedDescription)")
            }
        }
    }

    /// `GET /simulator/v1/<route>` (route: status, devices, activities, log, with an optional query),
    /// with `authorization: Bearer` when the endpoint has an inspection token.
    /// - Throws: `SimulatorError(.rejected)` for connection failures or a non-200 answer.
    public static func fetch(_ route: String, from endpoint: Endpoint) async throws(SimulatorError) -> JSONValue {
        let connection: HTTP2Connection
        do {
            connection = try await HTTP2Connection.connect(
                host: endpoint.host, port: endpoint.port,
                configuration: HTTP2ClientConfiguration(trust: .caFile(endpoint.caFile), connectTimeout: .seconds(5), requestTimeout: .seconds(10), idlePingInterval: nil))
        } catch {
            throw SimulatorError(.rejected, "cannot reach the simulator at \(endpoint.host):\(endpoint.port): \(error)")
        }
        defer { Task { await connection.close() } }
        let response: HTTP2Response
        do {
            var headers: HTTP2Headers = [:]
            if let token = endpoint.inspectionToken { headers = ["authorization": "Bearer " + token] }
            response = try await connection.send(HTTP2Request(method: "GET", path: "/simulator/v1/" + route, headers: headers))
        } catch {
            throw SimulatorError(.rejected, "GET /simulator/v1/\(route) failed: \(error)")
        }
        guard response.status == 200, let json = try? JSONValue.parse(response.body) else {
            throw SimulatorError(.rejected, "GET /simulator/v1/\(route) answered \(response.status): \(response.bodyText.prefix(200))")
        }
        return json
    }
}
