/// The certificate a client presented (certificate authentication), as the server saw it.
public struct HTTP2PeerCertificate: Sendable, Equatable {
    /// The subject in RFC 2253 form, e.g. `C=US,O=...,OU=TEAMID,CN=...,UID=com.example.app`.
    public let subject: String
    /// The subject's UID attribute (APNs certificates put the bundle ID there), if any.
    public let userID: String?
    /// The subject's common name, if any.
    public let commonName: String?
    /// The subject's organizational unit (APNs: the team ID), if any.
    public let organizationalUnit: String?

    /// Creates peer certificate details.
    public init(subject: String, userID: String?, commonName: String?, organizationalUnit: String?) {
        self.subject = subject
        self.userID = userID
        self.commonName = commonName
        self.organizationalUnit = organizationalUnit
    }
}
