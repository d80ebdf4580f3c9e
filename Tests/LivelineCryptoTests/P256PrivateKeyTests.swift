import Foundation
import LivelineCrypto
import Testing

@Suite struct P256PrivateKeyTests {
    @Test func loadsAnOpenSSLGeneratedKeyAndSignsVerifiably() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let keyPath = try await tool.generateP256()
        let key = try P256PrivateKey(contentsOfFile: keyPath)
        let message = Array("liveline".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("livelinf".utf8)))

        // The public key openssl derives is the one we derive.
        let pubPEM = try await tool.must(["pkey", "-in", keyPath, "-pubout"]).text
        #expect(try P256PublicKey(pem: pubPEM) == key.publicKey)
        #expect(try P256PublicKey(pem: key.publicKey.pemRepresentation) == key.publicKey)

        // openssl verifies our signature once it is in DER.
        let sigPath = try tool.write("sig.der", derSignature(fromRaw: signature))
        let dataPath = try tool.write("data", message)
        let pubPath = try tool.write("pub.pem", Array(pubPEM.utf8))
        let verified = try await tool.run(["dgst", "-sha256", "-verify", pubPath, "-signature", sigPath, dataPath])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func verifiesDERSignaturesMadeByOpenSSL() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let keyPath = try await tool.generateP256()
        let dataPath = try tool.write("data", Array("header.claims".utf8))
        let der = try await tool.must(["dgst", "-sha256", "-sign", keyPath, dataPath]).stdout
        let key = try P256PrivateKey(contentsOfFile: keyPath)
        #expect(key.publicKey.isValidSignature(der, for: Array("header.claims".utf8)))
        #expect(!key.publicKey.isValidSignature(der, for: Array("header.claimz".utf8)))
        let raw = try #require(ECDSASignature.raw(fromDER: der))
        #expect(key.publicKey.isValidSignature(raw, for: Array("header.claims".utf8)))
        #expect(ECDSASignature.der(fromRaw: raw) == der)
        #expect(derSignature(fromRaw: raw) == der)
        // Trailing garbage after the DER sequence is refused.
        #expect(!key.publicKey.isValidSignature(der + [0], for: Array("header.claims".utf8)))
    }

    @Test func generatedKeysRoundTripThroughPKCS8() throws {
        let key = try P256PrivateKey.generate()
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try P256PrivateKey(pem: pem)
        #expect(again.publicKey == key.publicKey)
        #expect(try P256PrivateKey.generate().publicKey != key.publicKey)
        #expect(!"\(key)".contains(pem.split(separator: "\n")[1]))
    }

    /// A bad key file, how to make it, and what the error must say.
    struct BadKey: Sendable, CustomStringConvertible {
        var name: String
        var make: @Sendable (OpenSSLTool) async throws -> String
        var code: KeyError.Code
        var mentions: [String]
        var description: String { name }
    }

    static let badKeys: [BadKey] = [
        BadKey(name: "missing file", make: { $0.path("AuthKey_NOPE.p8") }, code: .fileNotFound, mentions: ["does not exist"]),
        BadKey(name: "directory", make: { $0.directory.path }, code: .unreadable, mentions: ["directory"]),
        BadKey(name: "encrypted PKCS#8", make: { tool in
            let plain = try await tool.generateP256("plain.p8")
            try await tool.must(["pkcs8", "-topk8", "-in", plain, "-out", tool.path("enc.p8"), "-v2", "aes-256-cbc", "-passout", "pass:secret"])
            return tool.path("enc.p8")
        }, code: .encrypted, mentions: ["encrypted"]),
        BadKey(name: "encrypted SEC1", make: { tool in
            let plain = try await tool.generateP256("plain.p8")
            try await tool.must(["ec", "-in", plain, "-out", tool.path("enc.pem"), "-aes256", "-passout", "pass:secret"])
            return tool.path("enc.pem")
        }, code: .encrypted, mentions: ["encrypted"]),
        BadKey(name: "RSA key", make: { try await $0.generateKey("rsa.p8", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]) },
               code: .notEC, mentions: ["RSA", "P-256"]),
        BadKey(name: "Ed25519 key", make: { try await $0.generateKey("ed.p8", ["-algorithm", "ED25519"]) }, code: .notEC, mentions: ["ED25519"]),
        BadKey(name: "P-384 key", make: { try await $0.generateKey("p384.p8", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]) },
               code: .wrongCurve, mentions: ["secp384r1", "P-384", "P-256"]),
        BadKey(name: "public key", make: { tool in
            let plain = try await tool.generateP256("plain.p8")
            try await tool.must(["pkey", "-in", plain, "-pubout", "-out", tool.path("pub.pem")])
            return tool.path("pub.pem")
        }, code: .wrongKind, mentions: ["public key"]),
        BadKey(name: "garbage", make: { try $0.write("garbage.p8", Array("hello, this is not a key\n".utf8)) }, code: .malformed, mentions: ["BEGIN"]),
        BadKey(name: "empty file", make: { try $0.write("empty.p8", []) }, code: .malformed, mentions: ["empty"]),
        BadKey(name: "corrupt PEM body", make: {
            try $0.write("corrupt.p8", Array("-----BEGIN PRIVATE KEY-----\nAAAAbm90IGEga2V5\n-----END PRIVATE KEY-----\n".utf8))
        }, code: .malformed, mentions: ["do not parse"]),
    ]

    @Test(arguments: badKeys)
    func badKeyFilesFailWithDistinctErrors(_ bad: BadKey) async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let path = try await bad.make(tool)
        let error = try #require(throws: KeyError.self) { try P256PrivateKey(contentsOfFile: path) }
        #expect(error.code == bad.code, "\(error.message)")
        #expect(error.message.contains(path), "\(error.message)")
        for word in bad.mentions { #expect(error.message.contains(word), "\(error.message)") }
        // No line of the key file leaks into the message.
        if let contents = FileManager.default.contents(atPath: path) {
            for line in String(decoding: contents, as: UTF8.self).split(separator: "\n") where line.count > 16 && !line.hasPrefix("-----") {
                #expect(!error.message.contains(line))
            }
        }
    }

    @Test func publicKeyLoaderRefusesAPrivateKeyAndTheWrongCurve() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let privatePath = try await tool.generateP256()
        #expect(throws: KeyError(.wrongKind, "key file '\(privatePath)' holds a private key where a public key was expected")) {
            try P256PublicKey(contentsOfFile: privatePath)
        }
        let p384 = try await tool.generateKey("p384.pem", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        try await tool.must(["pkey", "-in", p384, "-pubout", "-out", tool.path("p384.pub")])
        let error = try #require(throws: KeyError.self) { try P256PublicKey(contentsOfFile: tool.path("p384.pub")) }
        #expect(error.code == .wrongCurve)
    }
}
