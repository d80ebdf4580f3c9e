#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address: the one the server binds, and the text form of a peer's.
struct SocketAddress {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    /// `AF_INET` or `AF_INET6`.
    var family: Int32 { Int32(storage.ss_family) }

    /// Parses `host`, an IPv4 or IPv6 literal (an IPv6 scope such as `fe80::1%eth0` too), with
    /// TCP `port`. Names are not resolved.
    static func numeric(host: String, port: Int) throws(HTTPServerError) -> SocketAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            if let result { freeaddrinfo(result) }
            throw HTTPServerError(message: "host \"\(host)\" is not an IPv4 or IPv6 address; use a literal such as 127.0.0.1, 0.0.0.0, ::1 or ::")
        }
        defer { freeaddrinfo(first) }
        var item = SocketAddress()
        let count = min(Int(first.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &item.storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: count))
        }
        item.length = socklen_t(count)
        return item
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0) }
        }
    }

    /// `1.2.3.4:port` or `[::1]:port` for an `AF_INET` or `AF_INET6` address, `"?"` for others.
    static func describe(_ address: UnsafePointer<sockaddr>) -> String {
        let raw = UnsafeRawPointer(address)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = raw.assumingMemoryBound(to: sockaddr_in.self)
            var ip = v4.pointee.sin_addr
            return "\(text(AF_INET, &ip)):\(UInt16(bigEndian: v4.pointee.sin_port))"
        case AF_INET6:
            let v6 = raw.assumingMemoryBound(to: sockaddr_in6.self)
            var ip = v6.pointee.sin6_addr
            return "[\(text(AF_INET6, &ip))]:\(UInt16(bigEndian: v6.pointee.sin6_port))"
        default:
            return "?"
        }
    }

    /// The text form of the `in_addr` or `in6_addr` at `ip`.
    private static func text(_ family: Int32, _ ip: UnsafeRawPointer) -> String {
        let size = Int(INET6_ADDRSTRLEN) + 1
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer in
            guard let base = buffer.baseAddress, inet_ntop(family, ip, base, socklen_t(size)) != nil else { return "?" }
            return String(cString: base)
        }
    }
}
