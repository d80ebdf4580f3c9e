import COpenSSL

/// OpenSSL callbacks (static, nonisolated: they run on the event-loop thread inside OpenSSL).
enum TLSCallbacks {
    /// Server ALPN selection: `h2` or a fatal `no_application_protocol` alert.
    static let selectH2: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outLength, input, inputLength, _ in
        guard let input, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        var index = 0
        let length = Int(inputLength)
        while index < length {
            let itemLength = Int(input[index])
            let start = index + 1
            if start + itemLength > length { break }
            if itemLength == 2 && input[start] == UInt8(ascii: "h") && input[start + 1] == UInt8(ascii: "2") {
                out.pointee = input + start
                outLength.pointee = 2
                return SSL_TLSEXT_ERR_OK
            }
            index = start + itemLength
        }
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }
}

/// Drains OpenSSL's thread-local error queue into one line.
func openSSLErrors() -> String {
    var messages: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        messages.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
    return messages.isEmpty ? "no OpenSSL error details" : messages.joined(separator: "; ")
}
