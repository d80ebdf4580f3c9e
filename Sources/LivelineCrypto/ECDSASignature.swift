import COpenSSL

/// Conversions between the two encodings of a P-256 ECDSA signature.
///
/// JWS (RFC 7518) and APNs tokens use raw `r‖s` (32 + 32 bytes); OpenSSL and `openssl dgst` use
/// DER (`SEQUENCE { INTEGER r, INTEGER s }`). APNs accepts both.
public enum ECDSASignature {
    /// The size of a raw P-256 signature.
    public static let rawByteCount = 64

    /// Raw `r‖s` from a DER signature, or `nil` when `der` is not a canonical DER P-256 signature.
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard !der.isEmpty else { return nil }
        defer { ERR_clear_error() }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            let sig = d2i_ECDSA_SIG(nil, &pointer, buffer.count)
            // Trailing bytes after the SEQUENCE make it non-canonical.
            if let sig, pointer != buffer.baseAddress.map({ $0 + buffer.count }) {
                ECDSA_SIG_free(sig)
                return nil
            }
            return sig
        }
        guard let sig = parsed else { return nil }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var out = [UInt8](repeating: 0, count: rawByteCount)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? out : nil
    }

    /// DER from a raw `r‖s` signature, or `nil` when `raw` is not 64 bytes.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == rawByteCount, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig); ERR_clear_error() }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var pointer: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &pointer)
        }
        return written == length ? out : nil
    }
}
