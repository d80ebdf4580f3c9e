import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The C callbacks given to libmicrohttpd: static, nonisolated, called on libmicrohttpd's
/// threads. Their context pointer is the `ServerCore`, retained for the daemon's lifetime.
enum MHDCallbacks {
    static func core(_ context: UnsafeMutableRawPointer?) -> ServerCore {
        Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
    }

    /// `MHD_AcceptPolicyCallback`: refuses new connections once `stop()` began.
    static let accept: MHD_AcceptPolicyCallback = { context, _, _ in
        core(context).isAccepting ? .YES : .NO
    }

    /// `MHD_AccessHandlerCallback`: called after the headers, for each piece of the body, after
    /// the body, and again after each resume.
    static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, requestContext in
        guard let connection, let uploadSize, let requestContext else { return .NO }
        return core(context).access(connection: connection, url: url, method: method,
                                    upload: upload, uploadSize: uploadSize, requestContext: requestContext)
    }

    /// `MHD_RequestCompletedCallback`: the request finished, failed, timed out or its connection
    /// went away; frees the request's state.
    static let completed: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
        guard let requestContext, let pointer = requestContext.pointee else { return }
        requestContext.pointee = nil
        let request = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
        core(context).completed(request)
    }

    /// `MHD_LogCallback`: libmicrohttpd's messages, kept while the daemon starts (for the start
    /// error) and dropped afterwards (they are about single clients: resets, timeouts).
    static let log: MHD_LogCallback = { context, format, arguments in
        guard let format, let arguments, core(context).keepsLogLines else { return }
        var line = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&line, line.count, format, arguments)
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        core(context).log(text.trimmingSuffixNewlines())
    }

    /// `MHD_ContentReaderCallback` of a streamed body; its context is the retained `HTTPBodyStream`.
    static let streamRead: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        guard let context, let buffer else { return -2 }
        return Unmanaged<HTTPBodyStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: capacity)
    }

    /// `MHD_ContentReaderFreeCallback` of a streamed body: the response is gone; releases the stream.
    static let streamFree: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<HTTPBodyStream>.fromOpaque(context).takeRetainedValue().released()
    }

    /// `MHD_KeyValueIteratorN` appending `(name, value)` to the array at `context`, names as
    /// they came (query arguments).
    static let collect: MHD_KeyValueIteratorN = { context, _, key, keyLength, value, valueLength in
        let list = context!.assumingMemoryBound(to: [(name: String, value: String)].self)
        list.pointee.append((name: string(key, keyLength), value: string(value, valueLength)))
        return .YES
    }

    /// `MHD_KeyValueIteratorN` appending `(name, value)` to the array at `context`, names in
    /// lower case (headers).
    static let collectLowercased: MHD_KeyValueIteratorN = { context, _, key, keyLength, value, valueLength in
        let list = context!.assumingMemoryBound(to: [(name: String, value: String)].self)
        list.pointee.append((name: lowercasedString(key, keyLength), value: string(value, valueLength)))
        return .YES
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func lowercasedString(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer, length > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<length { buffer[index] = asciiLower(bytes[index]) }
            return length
        }
    }
}

private extension String {
    func trimmingSuffixNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
