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
    static let access: MHD_AccessHandlerCallback = { context, connection, url, method, version, upload, uploadSize, requestContext in
        guard let connection, let uploadSize, let requestContext else { return .NO }
        return core(context).access(connection: connection, url: url, method: method, version: version,
                                    upload: upload, uploadSize: uploadSize, requestContext: requestContext)
    }

    /// `MHD_OPTION_URI_LOG_CALLBACK`: the request line is in; creates the request's state with the
    /// target as it came (libmicrohttpd decodes it in place afterwards).
    static let uriLog: liveline_MHD_UriLogCallback = { _, uri, connection in
        guard let connection else { return nil }
        let target = uri.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }.map(Array.init) ?? []
        return Unmanaged.passRetained(RequestState(connection: connection, rawTarget: target)).toOpaque()
    }

    /// `MHD_OPTION_NOTIFY_CONNECTION`: a connection opened or closed (the request-header deadline).
    static let notifyConnection: MHD_NotifyConnectionCallback = { context, connection, _, event in
        guard let connection else { return }
        switch event {
        case .CONNECTION_NOTIFY_STARTED: core(context).deadlines?.opened(connection)
        case .CONNECTION_NOTIFY_CLOSED: core(context).deadlines?.closed(connection)
        default: break
        }
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

    /// `MHD_KeyValueIteratorN` appending each field's pointers and lengths to the array at
    /// `context` (the request-head layout check).
    static let collectRaw: MHD_KeyValueIteratorN = { context, _, key, keyLength, value, valueLength in
        let list = context!.assumingMemoryBound(to: [RawField].self)
        list.pointee.append(RawField(key: UInt(bitPattern: key), keyLength: keyLength,
                                     value: UInt(bitPattern: value), valueLength: valueLength))
        return .YES
    }

    /// A header field as libmicrohttpd stores it: where its name and value are, and their lengths.
    struct RawField {
        var key: UInt
        var keyLength: Int
        var value: UInt
        var valueLength: Int

        /// The name's and the value's bytes where libmicrohttpd keeps them (no copy: valid while
        /// it holds the request head).
        var nameBuffer: UnsafeRawBufferPointer { Self.buffer(key, keyLength) }
        var valueBuffer: UnsafeRawBufferPointer { Self.buffer(value, valueLength) }

        private static func buffer(_ address: UInt, _ count: Int) -> UnsafeRawBufferPointer {
            guard let start = UnsafeRawPointer(bitPattern: address), count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            return UnsafeRawBufferPointer(start: start, count: count)
        }
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
