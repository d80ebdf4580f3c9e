/// The certificate authorities a client trusts. Verification is always on; there is no
/// way to switch it off.
public enum TrustRoots: Sendable, Equatable {
    /// The system trust store (Debian: `/etc/ssl/certs`).
    case system
    /// Only the CA certificates in this PEM file (for local servers and the simulator).
    case caFile(String)
}
