/// A certificate chain and private key in PEM files: a server's identity, or a client
/// certificate for APNs certificate authentication.
public struct TLSIdentity: Sendable, Equatable {
    /// PEM file with the certificate, optionally followed by intermediates.
    public var certificateFile: String
    /// PEM file with the unencrypted private key.
    public var keyFile: String

    /// Creates an identity from two PEM file paths.
    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
