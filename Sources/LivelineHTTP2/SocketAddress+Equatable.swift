#if canImport(Glibc)
import Glibc
#endif

/// Two addresses are equal when their `sockaddr` bytes are (family, port, address, scope).
extension SocketAddress: Equatable {
    static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool {
        guard lhs.length == rhs.length else { return false }
        return lhs.withSockaddr { left, length in
            rhs.withSockaddr { right, _ in memcmp(left, right, Int(length)) == 0 }
        }
    }
}
