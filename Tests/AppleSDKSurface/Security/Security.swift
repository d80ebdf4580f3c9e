// Security's keychain-item part as the iOS SDK declares it: only what LivelineKit's
// KeychainSecretStore uses, with the signatures of Apple's documentation (the page, under
// https://developer.apple.com/documentation/, is named above each declaration). Stub bodies and
// stand-in values: compiled against, never run. See scripts/check-ios-sources.sh.
//
// The Core Foundation types these signatures name come from CoreFoundation, which `import Security`
// brings in on Apple's platforms (Security.h includes CoreFoundation.h). Linux's Foundation does not
// declare them, so they are declared here by their toll-free bridged Foundation classes, which gives
// the same `as String`, `as CFDictionary` and `as? Data` conversions the iOS SDK allows. The
// constants are C globals in the SDK (imported without Sendable checking): `nonisolated(unsafe)` here.
import Foundation

/// corefoundation/cftyperef: `typealias CFTypeRef = AnyObject`
public typealias CFTypeRef = AnyObject
/// corefoundation/cfstring (toll-free bridged with NSString, and so with String)
public typealias CFString = NSString
/// corefoundation/cfdictionary (toll-free bridged with NSDictionary)
public typealias CFDictionary = NSDictionary
/// kernel/osstatus: `typealias OSStatus = Int32`
public typealias OSStatus = Int32

/// security/errsecsuccess: `var errSecSuccess: OSStatus { get }`
public var errSecSuccess: OSStatus { 0 }

/// security/secitemcopymatching(_:_:): `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
@discardableResult public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }
/// security/secitemadd(_:_:): `func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
@discardableResult public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }
/// security/secitemdelete(_:): `func SecItemDelete(_ query: CFDictionary) -> OSStatus`
@discardableResult public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError() }

/// security/ksecclass: `let kSecClass: CFString`
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// security/ksecclassgenericpassword: `let kSecClassGenericPassword: CFString`
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// security/ksecattrservice: `let kSecAttrService: CFString`
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// security/ksecattraccount: `let kSecAttrAccount: CFString`
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// security/ksecreturndata: `let kSecReturnData: CFString`
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// security/ksecmatchlimit: `let kSecMatchLimit: CFString`
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// security/ksecmatchlimitone: `let kSecMatchLimitOne: CFString`
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// security/ksecvaluedata: `let kSecValueData: CFString`
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// security/ksecattraccessible: `let kSecAttrAccessible: CFString`
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// security/ksecattraccessibleafterfirstunlockthisdeviceonly: `let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString`
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
