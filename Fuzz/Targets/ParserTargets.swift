import Foundation
import LivelineCore
import LivelineCrypto
import LivelineUI

extension FuzzTarget {
    /// `JSONValue.parse`; a parsed value must also survive its own serialization.
    public static let json = FuzzTarget(name: "json") { bytes in
        do throws(JSONParseError) {
            let value = try JSONValue.parse(bytes)
            do { _ = try JSONValue.parse(value.serialized()) } catch {
                return "JSONValue.parse refused the serialization of a value it parsed: \(error)"
            }
            return nil
        } catch {
            return emptyMessage(error.message, "JSONValue.parse")
        }
    }

    /// `VoltraDecoder.decode(json:)`, the wire reader after brotli.
    public static let voltraJSON = FuzzTarget(name: "voltra-json") { bytes in
        do throws(UIError) { _ = try VoltraDecoder.decode(json: bytes); return nil } catch { return emptyMessage(error.message, "VoltraDecoder.decode(json:)") }
    }

    /// `VoltraDecoder.decode(base64:)`: base64 → brotli (8× limit) → JSON → tree.
    public static let voltraBase64 = FuzzTarget(name: "voltra-base64") { bytes in
        do throws(UIError) { _ = try VoltraDecoder.decode(base64: String(decoding: bytes, as: UTF8.self)); return nil } catch {
            return emptyMessage(error.message, "VoltraDecoder.decode(base64:)")
        }
    }

    /// `LayoutForm.parse`, the JSON form of a layout.
    public static let layoutForm = FuzzTarget(name: "layout-form") { bytes in
        do throws(UIError) { _ = try LayoutForm.parse(bytes); return nil } catch { return emptyMessage(error.message, "LayoutForm.parse") }
    }

    /// `P256PrivateKey(pem:)` and `P256PublicKey(pem:)` on the same text.
    public static let pemKey = FuzzTarget(name: "pem-key") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(KeyError) { _ = try P256PrivateKey(pem: text) } catch {
            if let problem = emptyMessage(error.message, "P256PrivateKey(pem:)") { return problem }
        }
        do throws(KeyError) { _ = try P256PublicKey(pem: text) } catch {
            if let problem = emptyMessage(error.message, "P256PublicKey(pem:)") { return problem }
        }
        return nil
    }
}
