import Foundation
import LivelineCrypto
import LivelineStore

/// The apps' `.p8` keys at rest: sealed with AES-256-GCM under the operator's key-encryption key
/// (`--kek-file` or `LIVELINE_KEK`), bound to their app (the bundle id is the associated data).
///
/// Without a KEK keys are stored as given, and every start warns. Once a KEK sealed them, a start
/// without it, or with another one, is refused, naming what to provide. A database of the
/// previous version (plain keys) is sealed on the first start with a KEK.
struct AppKeyVault: Sendable {
    let box: SecretBox?
    /// Where the KEK came from, for messages (never the KEK).
    let source: String

    init(_ configuration: ServiceConfiguration) throws(ServiceConfiguration.Problem) {
        if let file = configuration.kekFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .init(message: "cannot read the key-encryption key file '\(file)' (kekFile, --kek-file)")
            }
            do { box = try SecretBox(keyText: String(decoding: data, as: UTF8.self)) } catch {
                throw .init(message: "the key-encryption key file '\(file)': \(error.message)")
            }
            source = "the key-encryption key file '\(file)'"
        } else if let text = configuration.kek {
            do { box = try SecretBox(keyText: text) } catch { throw .init(message: "LIVELINE_KEK (kek): \(error.message)") }
            source = "the key-encryption key in LIVELINE_KEK"
        } else {
            box = nil
            source = "no key-encryption key"
        }
    }

    static func context(_ bundleID: String) -> String { "apps.key_pem:" + bundleID }
    /// The apps' user-token secrets (HS256) are sealed the same way, under their own context: a
    /// copy of the database must not let anyone sign user tokens or grants.
    static func tokenSecretContext(_ bundleID: String) -> String { "user_token_secrets:" + bundleID }

    /// What to store for an app's user-token secret: sealed when there is a KEK.
    func sealTokenSecret(_ secret: String, bundleID: String) -> String {
        box.map { $0.seal(Array(secret.utf8), context: Self.tokenSecretContext(bundleID)) } ?? secret
    }

    /// A stored user-token secret in the clear (a secret stored before there was a KEK is plain).
    func openTokenSecret(_ stored: String, bundleID: String) throws(ServiceConfiguration.Problem) -> String {
        guard SecretBox.isSealed(stored) else { return stored }
        guard let box else {
            throw .init(message: "the database holds encrypted user-token secrets: give the key-encryption key they were encrypted with (--kek-file FILE, or the LIVELINE_KEK environment variable)")
        }
        do { return String(decoding: try box.open(stored, context: Self.tokenSecretContext(bundleID)), as: UTF8.self) } catch {
            throw .init(message: "\(source) does not open the stored user-token secret of \(bundleID): it is not the key-encryption key it was encrypted with (\(error.message))")
        }
    }

    /// What to store for a `.p8` key: sealed when there is a KEK.
    func seal(_ pem: String, bundleID: String) -> String {
        box.map { $0.seal(Array(pem.utf8), context: Self.context(bundleID)) } ?? pem
    }

    /// The PEM text of a stored key.
    func open(_ stored: String, bundleID: String) throws(ServiceConfiguration.Problem) -> String {
        guard SecretBox.isSealed(stored) else { return stored }
        guard let box else {
            throw .init(message: "the database holds encrypted .p8 keys: give the key-encryption key they were encrypted with (--kek-file FILE, or the LIVELINE_KEK environment variable)")
        }
        do { return String(decoding: try box.open(stored, context: Self.context(bundleID)), as: UTF8.self) } catch {
            throw .init(message: "\(source) does not open the stored .p8 key of \(bundleID): it is not the key-encryption key the keys were encrypted with (\(error.message))")
        }
    }

    /// At start: every stored key must open; plain keys are sealed when there is a KEK. Returns
    /// how many were sealed now, and how many stay plain (no KEK).
    func prepare(_ store: any Store) throws -> (sealed: Int, plain: Int) {
        try store.write { tx in
            var sealed = 0, plain = 0
            for var app in try tx.apps() {
                // Token secrets must open too (they are sealed when set; rotate to seal an older one).
                for stored in try tx.userTokenSecrets(bundleID: app.bundleID) { _ = try openTokenSecret(stored, bundleID: app.bundleID) }
                let pem = try open(app.keyPEM, bundleID: app.bundleID)
                guard !SecretBox.isSealed(app.keyPEM) else { continue }
                if box == nil { plain += 1; continue }
                app.keyPEM = seal(pem, bundleID: app.bundleID)
                try tx.upsertApp(app)
                sealed += 1
            }
            return (sealed, plain)
        }
    }
}
