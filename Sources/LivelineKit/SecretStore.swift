import Foundation
#if canImport(Security) && os(iOS)
import Security
#endif

/// The installation the service issued to this install: its id (the device id every device route
/// uses) and its secret (`ll_inst_…`, the credential for them). The secret is never logged.
public struct InstallationCredential: Sendable, Codable, Equatable, CustomStringConvertible {
    public var installationID: String
    public var secret: String
    public init(installationID: String, secret: String) {
        self.installationID = installationID
        self.secret = secret
    }
    public var description: String { "InstallationCredential(\(installationID), secret: ***)" }
}

/// Where the installation credential is kept: the platform's secure storage.
public protocol SecretStore: Sendable {
    func load() -> InstallationCredential?
    func save(_ credential: InstallationCredential) throws
    func clear()
}

/// A file readable by its owner only (mode 0600), for Linux, tests and tools.
public struct FileSecretStore: SecretStore {
    public let url: URL
    public init(url: URL) { self.url = url }

    public func load() -> InstallationCredential? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? JSONDecoder().decode(InstallationCredential.self, from: data)
    }

    public func save(_ credential: InstallationCredential) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try JSONEncoder().encode(credential)
        let temporary = url.appendingPathExtension("new")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        // rename(2) replaces the old file atomically, whether or not there is one.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    public func clear() { try? FileManager.default.removeItem(at: url) }
}

/// Kept in memory only: a new process creates a new installation. For clients used without a
/// `TokenUploader` on platforms without a keychain.
public final class MemorySecretStore: SecretStore, @unchecked Sendable {
    private let lock = NSLock()
    private var value: InstallationCredential?
    public init() {}
    public func load() -> InstallationCredential? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
    public func save(_ credential: InstallationCredential) throws {
        lock.lock()
        defer { lock.unlock() }
        value = credential
    }
    public func clear() {
        lock.lock()
        defer { lock.unlock() }
        value = nil
    }
}

#if canImport(Security) && os(iOS)
/// The iOS Keychain (a generic password, readable after first unlock so background wakes can use it).
public struct KeychainSecretStore: SecretStore {
    public let service: String
    public let account: String
    public init(service: String = "liveline.installation", account: String) {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    public func load() -> InstallationCredential? {
        var q = query
        q[kSecReturnData as String] = true
        q[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        guard SecItemCopyMatching(q as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
        return try? JSONDecoder().decode(InstallationCredential.self, from: data)
    }

    public func save(_ credential: InstallationCredential) throws {
        let data = try JSONEncoder().encode(credential)
        SecItemDelete(query as CFDictionary)
        var q = query
        q[kSecValueData as String] = data
        q[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(q as CFDictionary, nil)
        guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
    }

    public func clear() { SecItemDelete(query as CFDictionary) }
}
#endif
