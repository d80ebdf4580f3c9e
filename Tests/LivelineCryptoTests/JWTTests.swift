import Foundation
import LivelineCrypto
import Testing

@Suite struct JWTTests {
    /// Splits a compact token into its three parts.
    func parts(_ token: String) -> [String] { token.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    func json(_ part: String) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func tokenHasTheAPNsShapeAndVerifiesWithOpenSSL() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let keyPath = try await tool.generateP256()
        let key = try P256PrivateKey(contentsOfFile: keyPath)
        let token = try JWT.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: Date(timeIntervalSince1970: 1_700_000_000.9), key: key)
        let p = parts(token)
        #expect(p.count == 3)
        #expect(!token.contains("="))
        #expect(!token.contains("+") && !token.contains("/"))
        let header = try json(p[0])
        #expect(header.count == 2)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        let claims = try json(p[1])
        #expect(claims.count == 2)
        #expect(claims["iss"] as? String == "DEF123GHIJ")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
        let signature = try #require(Base64URL.decode(p[2]))
        #expect(signature.count == 64)

        // openssl's own verifier accepts it.
        try await tool.must(["pkey", "-in", keyPath, "-pubout", "-out", tool.path("pub.pem")])
        let input = try tool.write("input", Array("\(p[0]).\(p[1])".utf8))
        let sig = try tool.write("sig.der", derSignature(fromRaw: signature))
        let ok = try await tool.run(["dgst", "-sha256", "-verify", tool.path("pub.pem"), "-signature", sig, input])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.text.contains("Verified OK"))

        // A tampered token does not verify, with openssl or with us.
        let tamperedClaims = Base64URL.encode(Array("{\"iss\":\"DEF123GHIJ\",\"iat\":1700000001}".utf8))
        let tamperedInput = try tool.write("tampered", Array("\(p[0]).\(tamperedClaims)".utf8))
        let bad = try await tool.run(["dgst", "-sha256", "-verify", tool.path("pub.pem"), "-signature", sig, tamperedInput])
        #expect(bad.status != 0)
        let parsed = try JWT(parsing: "\(p[0]).\(tamperedClaims).\(p[2])")
        #expect(throws: JWTError.self) { try parsed.verify(with: key.publicKey) }
    }

    @Test func parsesAndVerifiesOurTokens() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWT.sign(keyID: "KEY4567890", teamID: "TEAM456789", issuedAt: Date(timeIntervalSince1970: 1_800_000_000), key: key)
        let jwt = try JWT(parsing: token)
        #expect(jwt.keyID == "KEY4567890")
        #expect(jwt.teamID == "TEAM456789")
        #expect(jwt.issuedAtSeconds == 1_800_000_000)
        #expect(jwt.issuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(jwt.signatureEncoding == .raw)
        try jwt.verify(with: key.publicKey)
        let other = try P256PrivateKey.generate()
        let error = try #require(throws: JWTError.self) { try jwt.verify(with: other.publicKey) }
        #expect(error.code == .signatureMismatch)
        #expect(!error.message.contains(parts(token)[2]))
        #expect(!"\(jwt)".contains(parts(token)[2]))
    }

    /// Apple's command-line recipe signs with `openssl dgst -sha256 -sign`, which writes DER.
    @Test func acceptsDERSignedTokensLikeApplesShellRecipe() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let keyPath = try await tool.generateP256()
        let header = Base64URL.encode(Array("{\"alg\":\"ES256\",\"kid\":\"ABC123DEFG\"}".utf8))
        let claims = Base64URL.encode(Array("{\"iss\":\"DEF123GHIJ\",\"iat\":1700000000}".utf8))
        let input = try tool.write("input", Array("\(header).\(claims)".utf8))
        let der = try await tool.must(["dgst", "-sha256", "-sign", keyPath, input]).stdout
        let jwt = try JWT(parsing: "\(header).\(claims).\(Base64URL.encode(der))")
        #expect(jwt.signatureEncoding == .der)
        let key = try P256PrivateKey(contentsOfFile: keyPath)
        try jwt.verify(with: key.publicKey)
        var flipped = der
        flipped[flipped.count - 1] ^= 0x01
        let tampered = try JWT(parsing: "\(header).\(claims).\(Base64URL.encode(flipped))")
        #expect(throws: JWTError.self) { try tampered.verify(with: key.publicKey) }
    }

    struct BadToken: Sendable, CustomStringConvertible {
        var name: String
        var token: String
        var code: JWTError.Code
        var description: String { name }
    }

    static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
    static let goodHeader = b64("{\"alg\":\"ES256\",\"kid\":\"ABC123DEFG\"}")
    static let goodClaims = b64("{\"iss\":\"DEF123GHIJ\",\"iat\":1700000000}")
    static let fakeSignature = Base64URL.encode([UInt8](repeating: 7, count: 64))

    static let badTokens: [BadToken] = [
        BadToken(name: "empty", token: "", code: .malformed),
        BadToken(name: "two parts", token: "\(goodHeader).\(goodClaims)", code: .malformed),
        BadToken(name: "four parts", token: "\(goodHeader).\(goodClaims).\(fakeSignature).x", code: .malformed),
        BadToken(name: "empty signature", token: "\(goodHeader).\(goodClaims).", code: .malformed),
        BadToken(name: "not base64url", token: "\(goodHeader)!.\(goodClaims).\(fakeSignature)", code: .badEncoding),
        BadToken(name: "header not JSON", token: "\(b64("nope")).\(goodClaims).\(fakeSignature)", code: .badHeader),
        BadToken(name: "header is an array", token: "\(b64("[1]")).\(goodClaims).\(fakeSignature)", code: .badHeader),
        BadToken(name: "RS256", token: "\(b64("{\"alg\":\"RS256\",\"kid\":\"A\"}")).\(goodClaims).\(fakeSignature)", code: .unsupportedAlgorithm),
        BadToken(name: "no alg", token: "\(b64("{\"kid\":\"A\"}")).\(goodClaims).\(fakeSignature)", code: .unsupportedAlgorithm),
        BadToken(name: "no kid", token: "\(b64("{\"alg\":\"ES256\"}")).\(goodClaims).\(fakeSignature)", code: .missingKeyID),
        BadToken(name: "numeric kid", token: "\(b64("{\"alg\":\"ES256\",\"kid\":5}")).\(goodClaims).\(fakeSignature)", code: .missingKeyID),
        BadToken(name: "claims not JSON", token: "\(goodHeader).\(b64("{")).\(fakeSignature)", code: .badClaims),
        BadToken(name: "no iss", token: "\(goodHeader).\(b64("{\"iat\":1}")).\(fakeSignature)", code: .missingIssuer),
        BadToken(name: "no iat", token: "\(goodHeader).\(b64("{\"iss\":\"T\"}")).\(fakeSignature)", code: .missingIssuedAt),
        BadToken(name: "string iat", token: "\(goodHeader).\(b64("{\"iss\":\"T\",\"iat\":\"1\"}")).\(fakeSignature)", code: .missingIssuedAt),
        BadToken(name: "fractional iat", token: "\(goodHeader).\(b64("{\"iss\":\"T\",\"iat\":1.5}")).\(fakeSignature)", code: .missingIssuedAt),
        BadToken(name: "short signature", token: "\(goodHeader).\(goodClaims).\(Base64URL.encode([1, 2, 3]))", code: .badSignature),
    ]

    @Test(arguments: badTokens)
    func malformedTokensFailWithTypedErrors(_ bad: BadToken) {
        let error = #expect(throws: JWTError.self) { try JWT(parsing: bad.token) }
        #expect(error?.code == bad.code, "\(error?.message ?? "")")
        if bad.token.count > 20 { #expect(error?.message.contains(bad.token) == false) }
    }

    @Test func base64URLRoundTripsAndRejectsOtherAlphabets() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("_-8") == [0xff, 0xef])
    }
}
