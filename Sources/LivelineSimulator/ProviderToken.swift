import Foundation
import LivelineCore

/// A provider authentication token (JWT) split into the parts APNs checks.
struct ProviderToken: Sendable, Hashable {
    var keyID: String
    var teamID: String
    var issuedAt: Date
    var signingInput: [UInt8]
    var signature: [UInt8]

    /// Why a token could not be read; never includes the token itself.
    struct ParseFailure: Error, Sendable { var why: String }

    /// Parses `header.claims.signature` (unpadded base64url): alg must be ES256, `kid`, `iss` and `iat` present.
    static func parse(_ token: String) throws(ParseFailure) -> ProviderToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { throw ParseFailure(why: "not three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONValue.parse(headerBytes), header.objectValue != nil else {
            throw ParseFailure(why: "header is not base64url JSON")
        }
        guard let claimBytes = Base64URL.decode(parts[1]), let claims = try? JSONValue.parse(claimBytes), claims.objectValue != nil else {
            throw ParseFailure(why: "claims are not base64url JSON")
        }
        guard let signature = Base64URL.decode(parts[2]) else { throw ParseFailure(why: "signature is not base64url") }
        guard header["alg"]?.stringValue == "ES256" else { throw ParseFailure(why: "alg is not ES256") }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { throw ParseFailure(why: "header has no kid") }
        guard let iss = claims["iss"]?.stringValue, !iss.isEmpty else { throw ParseFailure(why: "claims have no iss") }
        guard let iat = claims["iat"]?.numberValue, iat.isFinite else { throw ParseFailure(why: "claims have no numeric iat") }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        return ProviderToken(keyID: kid, teamID: iss, issuedAt: Date(timeIntervalSince1970: iat), signingInput: input, signature: signature)
    }
}

/// Unpadded base64url (RFC 4648 §5), as JWTs use.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var s = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if s.contains("=") { return nil }
        while s.utf8.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
