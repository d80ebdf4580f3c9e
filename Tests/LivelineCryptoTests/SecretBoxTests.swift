import LivelineCrypto
import Testing

@Suite("SecretBox: AES-256-GCM through OpenSSL")
struct SecretBoxTests {
    let pem = Array("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n".utf8)

    @Test("sealing and opening give back the plaintext; each seal uses a new nonce; the sealed text holds no plaintext")
    func roundTrip() throws {
        let box = try SecretBox(keyText: SecretBox.generateKeyText())
        let a = box.seal(pem, context: "apps.key_pem:com.example.a")
        let b = box.seal(pem, context: "apps.key_pem:com.example.a")
        #expect(a != b)
        #expect(SecretBox.isSealed(a))
        #expect(!a.contains("PRIVATE") && !a.contains("MIGHAgEA"))
        #expect(try box.open(a, context: "apps.key_pem:com.example.a") == pem)
        #expect(try box.open(box.seal([], context: "x"), context: "x") == [])
    }

    @Test("another key, another context (a value moved to another row) or one changed byte do not open")
    func tampering() throws {
        let box = try SecretBox(keyText: SecretBox.generateKeyText())
        let other = try SecretBox(keyText: SecretBox.generateKeyText())
        let sealed = box.seal(pem, context: "apps.key_pem:com.example.a")
        #expect(throws: SecretBoxError.self) { try other.open(sealed, context: "apps.key_pem:com.example.a") }
        #expect(throws: SecretBoxError.self) { try box.open(sealed, context: "apps.key_pem:com.example.b") }
        var bytes = Array(sealed.utf8)
        let i = bytes.count - 10
        bytes[i] = bytes[i] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: SecretBoxError.self) { try box.open(String(decoding: bytes, as: UTF8.self), context: "apps.key_pem:com.example.a") }
        #expect(throws: SecretBoxError.self) { try box.open("-----BEGIN PRIVATE KEY-----", context: "x") }
    }

    @Test("a key is 64 hex digits or base64 of 32 bytes; anything else is a clear error")
    func keyText() throws {
        let hex = String(repeating: "ab", count: 32)
        let fromHex = try SecretBox(keyText: hex + "\n")
        let fromBase64 = try SecretBox(keyText: "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=")
        // The same 32 bytes (0xab…) either way: what one seals the other opens.
        #expect(try fromBase64.open(fromHex.seal(pem, context: "c"), context: "c") == pem)
        #expect { try SecretBox(keyText: "too short") } throws: { "\($0)".contains("64 hex digits or in base64") }
        #expect(throws: SecretBoxError.self) { try SecretBox(key: [1, 2, 3]) }
    }
}
