import ObscuraCrypto

/// Crockford's base32 (docs/FORMAT.md §4.2): how device secrets and generated export
/// passwords are shown to people. Secrets stay in ``SecureBytes`` on both sides.
public enum Crockford32 {
    /// The 32 symbols, in value order.
    package static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// Encodes `secret` as upper-case symbols, 5 bits each, most significant first; a
    /// final partial group is padded with zero bits.
    public static func encode(_ secret: SecureBytes) -> SecureBytes {
        let count = (secret.count * 8 + 4) / 5
        let out = SecureBytes(count: count)
        secret.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                var buffer = 0, bits = 0, n = 0
                for byte in input {
                    buffer = (buffer << 8) | Int(byte)
                    bits += 8
                    while bits >= 5 {
                        output[n] = alphabet[(buffer >> (bits - 5)) & 31]
                        bits -= 5
                        n += 1
                    }
                    buffer &= (1 << bits) - 1
                }
                if bits > 0 { output[n] = alphabet[(buffer << (5 - bits)) & 31] }
            }
        }
        return out
    }

    /// Decodes `text` leniently: case-insensitive, O as 0, I and L as 1, and dashes and
    /// spaces ignored. Returns nil on any other symbol, or when the input does not encode
    /// exactly `byteCount` bytes with zero padding bits.
    public static func decode(_ text: SecureBytes, byteCount: Int) -> SecureBytes? {
        let out = SecureBytes(count: byteCount)
        let ok: Bool = text.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                var buffer = 0, bits = 0, n = 0
                for symbol in input {
                    if symbol == UInt8(ascii: "-") || symbol == UInt8(ascii: " ") { continue }
                    guard let value = Self.value(of: symbol) else { return false }
                    buffer = (buffer << 5) | value
                    bits += 5
                    if bits >= 8 {
                        guard n < byteCount else { return false }
                        output[n] = UInt8((buffer >> (bits - 8)) & 0xFF)
                        n += 1
                        bits -= 8
                    }
                    buffer &= (1 << bits) - 1
                }
                return n == byteCount && buffer == 0 && bits < 5
            }
        }
        return ok ? out : nil
    }

    package static func value(of symbol: UInt8) -> Int? {
        var s = symbol
        if s >= UInt8(ascii: "a") && s <= UInt8(ascii: "z") { s -= 32 }
        switch s {
        case UInt8(ascii: "O"): s = UInt8(ascii: "0")
        case UInt8(ascii: "I"), UInt8(ascii: "L"): s = UInt8(ascii: "1")
        default: break
        }
        return alphabet.firstIndex(of: s)
    }
}
