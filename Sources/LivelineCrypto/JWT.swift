import Foundation

/// An APNs provider token: an ES256 JSON Web Token with header `{"alg":"ES256","kid":…}` and
/// claims `{"iss":<team id>,"iat":<Unix seconds>}`.
///
/// `JWT.sign(keyID:teamID:issuedAt:key:)` makes the compact token a client sends as
/// `authorization: bearer <token>`; `JWT(parsing:)` reads one (as a server does) and
/// `verify(with:)` checks its signature, raw `r‖s` or DER.
///
/// - Important: a token is a credential for up to an hour. `description` never shows it.
public struct JWT: Sendable, Hashable, CustomStringConvertible {
    /// How the signature part was encoded.
    public enum SignatureEncoding: String, Sendable, Hashable {
        /// 64 bytes `r‖s` (RFC 7518), what `sign` writes.
        case raw
        /// ASN.1 DER, what `openssl dgst -sha256 -sign` writes; APNs accepts it too.
        case der
    }

    /// The header's `kid`: the 10-character key ID.
    public let keyID: String
    /// The claims' `iss`: the 10-character team ID.
    public let teamID: String
    /// The claims' `iat` in Unix seconds.
    public let issuedAtSeconds: Int64
    /// How the signature was encoded.
    public let signatureEncoding: SignatureEncoding
    /// The bytes that were signed: `base64url(header).base64url(claims)`.
    let signingInput: [UInt8]
    /// The raw 64-byte `r‖s` signature.
    let rawSignature: [UInt8]

    /// The claims' `iat` as a date.
    public var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(issuedAtSeconds)) }

    /// Makes a compact provider token signed with `key`.
    ///
    /// - Parameters:
    ///   - keyID: the key's ID (from the `AuthKey_<KEYID>.p8` file name), the header's `kid`.
    ///   - teamID: the developer team ID, the `iss` claim.
    ///   - issuedAt: the `iat` claim; truncated to whole seconds.
    /// - Throws: `KeyError` only when OpenSSL fails to sign.
    public static func sign(keyID: String, teamID: String, issuedAt: Date, key: P256PrivateKey) throws(KeyError) -> String {
        let header = "{\"alg\":\"ES256\",\"kid\":\(jsonString(keyID))}"
        let claims = "{\"iss\":\(jsonString(teamID)),\"iat\":\(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signature(for: input.utf8)
        return input + "." + Base64URL.encode(signature)
    }

    /// Parses a compact token without checking its signature.
    ///
    /// - Throws: `JWTError` naming the part that is wrong (never the token).
    public init(parsing token: String) throws(JWTError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw JWTError(.malformed, "the provider token has \(parts.count) dot-separated part\(parts.count == 1 ? "" : "s")\(parts.contains { $0.isEmpty } ? " (some empty)" : ""); a JWT has three: header.claims.signature")
        }
        func decode(_ part: Substring, _ name: String) throws(JWTError) -> [UInt8] {
            guard let bytes = Base64URL.decode(part) else {
                throw JWTError(.badEncoding, "the provider token's \(name) is not base64url")
            }
            return bytes
        }
        let header = try Self.object(try decode(parts[0], "header"), .badHeader, "header")
        switch header["alg"] {
        case .string("ES256"): break
        case .string(let alg): throw JWTError(.unsupportedAlgorithm, "the provider token's alg is \"\(alg)\"; APNs tokens use ES256")
        default: throw JWTError(.unsupportedAlgorithm, "the provider token's header has no string alg; APNs tokens use ES256")
        }
        guard case .string(let kid) = header["kid"], !kid.isEmpty else {
            throw JWTError(.missingKeyID, "the provider token's header has no kid (the key ID)")
        }
        let claims = try Self.object(try decode(parts[1], "claims"), .badClaims, "claims")
        guard case .string(let iss) = claims["iss"], !iss.isEmpty else {
            throw JWTError(.missingIssuer, "the provider token's claims have no iss (the team ID)")
        }
        guard case .integer(let iat) = claims["iat"] else {
            throw JWTError(.missingIssuedAt, "the provider token's claims have no integer iat (Unix seconds)")
        }
        let signature = try decode(parts[2], "signature")
        if signature.count == ECDSASignature.rawByteCount {
            rawSignature = signature
            signatureEncoding = .raw
        } else if let raw = ECDSASignature.raw(fromDER: signature) {
            rawSignature = raw
            signatureEncoding = .der
        } else {
            throw JWTError(.badSignature, "the provider token's signature is \(signature.count) bytes and not DER; ES256 signatures are 64 raw bytes or DER")
        }
        keyID = kid
        teamID = iss
        issuedAtSeconds = iat
        signingInput = Array(token[..<parts[1].endIndex].utf8)
    }

    /// Checks the signature with the public key of `keyID`.
    ///
    /// - Throws: `JWTError(.signatureMismatch)` when it does not verify.
    public func verify(with key: P256PublicKey) throws(JWTError) {
        guard key.isValidSignature(rawSignature, for: signingInput) else {
            throw JWTError(.signatureMismatch, "the provider token's signature does not verify with the key for kid \(keyID)")
        }
    }

    public var description: String { "JWT(kid: \(keyID), iss: \(teamID), iat: \(issuedAtSeconds), \(signatureEncoding) signature)" }

    // MARK: - JSON

    /// A JSON member value, as far as tokens care.
    enum Scalar: Decodable, Equatable {
        case string(String), integer(Int64), other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let s = try? container.decode(String.self) { self = .string(s) }
            else if let i = try? container.decode(Int64.self) { self = .integer(i) }
            else { self = .other }
        }
    }

    static func object(_ bytes: [UInt8], _ code: JWTError.Code, _ name: String) throws(JWTError) -> [String: Scalar] {
        do {
            return try JSONDecoder().decode([String: Scalar].self, from: Data(bytes))
        } catch {
            throw JWTError(code, "the provider token's \(name) is not a JSON object")
        }
    }

    /// A JSON string literal for `text`.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
