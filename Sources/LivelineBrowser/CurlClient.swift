import CCurl
import Foundation
import Synchronization

/// HTTP/1.1 requests to a local server (chromedriver) through one libcurl easy handle, kept alive
/// between requests. Requests run one at a time on a serial queue of their own, never on one of
/// Swift concurrency's few cooperative threads.
final class CurlClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
    }

    private let handle: Mutex<Handle>
    private let queue = DispatchQueue(label: "liveline.browser.curl")
    private let timeoutMilliseconds: Int

    /// The easy handle, only touched under the mutex.
    private struct Handle: ~Copyable {
        let pointer: UnsafeMutableRawPointer
        deinit { curl_easy_cleanup(pointer) }
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// - Parameter timeout: the longest one request may take (a page load, a screenshot).
    init(timeout: Duration) throws(BrowserError) {
        guard Self.globalInit, let pointer = curl_easy_init() else { throw BrowserError("libcurl failed to initialise") }
        handle = Mutex(Handle(pointer: pointer))
        timeoutMilliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Sends `method` to `url` with `body` as JSON (none for nil) and returns the status and body.
    func send(_ method: String, _ url: String, body: [UInt8]?) async throws(BrowserError) -> Response {
        let result: Result<Response, BrowserError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: handle.withLock { perform($0.pointer, method, url, body) })
            }
        }
        return try result.get()
    }

    private func perform(_ curl: UnsafeMutableRawPointer, _ method: String, _ url: String, _ body: [UInt8]?) -> Result<Response, BrowserError> {
        let sink = ResponseSink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = curl_slist_append(headers, "Content-Type: application/json; charset=utf-8")
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        var payload = body ?? []
        let code: CURLcode = payload.withUnsafeMutableBytes { bytes in
            // Each request sets every option it depends on: the handle carries the previous request's.
            var setup = [
                liveline_curl_set_string(curl, CURLOPT_URL, url),
                liveline_curl_set_long(curl, CURLOPT_NOSIGNAL, 1),
                liveline_curl_set_long(curl, CURLOPT_TIMEOUT_MS, timeoutMilliseconds),
                liveline_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, 10_000),
                liveline_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers)),
                liveline_curl_set_write_function(curl, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
                    sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
                    return size * count
                }),
                liveline_curl_set_pointer(curl, CURLOPT_WRITEDATA, context.toOpaque()),
            ]
            if body != nil {
                setup.append(liveline_curl_set_long(curl, CURLOPT_POST, 1))
                setup.append(liveline_curl_set_pointer(curl, CURLOPT_POSTFIELDS, bytes.baseAddress))
                setup.append(liveline_curl_set_long(curl, CURLOPT_POSTFIELDSIZE, bytes.count))
            } else {
                setup.append(liveline_curl_set_long(curl, CURLOPT_HTTPGET, 1))
            }
            setup.append(liveline_curl_set_string(curl, CURLOPT_CUSTOMREQUEST, method == "GET" || method == "POST" ? nil : method))
            if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(curl)
        }
        guard code == CURLE_OK else {
            return .failure(BrowserError("\(method) \(url): \(String(cString: curl_easy_strerror(code)))"))
        }
        var status = 0
        _ = liveline_curl_response_code(curl, &status)
        return .success(Response(status: status, body: sink.bytes))
    }
}

/// Collects a response body; only the request's own thread touches it while curl runs.
private final class ResponseSink {
    var bytes: [UInt8] = []
}
