import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCommandLine
import LivelineCore

/// A small JSON client for the service's API, for the demo and the benchmarks.
public struct ServiceHTTPClient: Sendable {
    public var baseURL: String
    public var key: String?

    public init(baseURL: String, key: String? = nil) {
        self.baseURL = baseURL
        self.key = key
    }

    public struct Reply: Sendable {
        public var status: Int
        public var json: JSONValue
    }

    public func call(_ method: String, _ path: String, _ body: JSONValue? = nil, key: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        guard let url = URL(string: baseURL + path) else { throw CLIError(message: "bad URL \(baseURL + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let k = key ?? self.key { request.setValue("Bearer \(k)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.serialized())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response): (Data, URLResponse)
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw CLIError(message: "\(method) \(path): the service could not be reached: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONValue.parse(Array(data))) ?? .string(String(decoding: data, as: UTF8.self))
        return Reply(status: status, json: json)
    }

    /// Calls and requires a 2xx answer.
    public func expect(_ method: String, _ path: String, _ body: JSONValue? = nil, key: String? = nil) async throws -> JSONValue {
        let reply = try await call(method, path, body, key: key)
        guard (200...299).contains(reply.status) else {
            throw CLIError(message: "\(method) \(path) answered \(reply.status): \(reply.json["error"]?["message"]?.stringValue ?? reply.json.jsonString)")
        }
        return reply.json
    }
}
