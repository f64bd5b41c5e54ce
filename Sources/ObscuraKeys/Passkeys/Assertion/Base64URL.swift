import ObscuraCrypto

/// base64url without padding (RFC 4648 §5), as WebAuthn writes challenges into
/// `clientDataJSON` and as the passkey API carries binary fields.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`, as UTF-8 bytes.
    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = UInt32(0)
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { out.append(alphabet[Int(value >> (18 - 6 * position)) & 0x3F]) }
            index += 3
        }
        return out
    }

    /// The bytes of unpadded base64url `text`; nil for any other character, padding, a
    /// length of 1 mod 4, or unused bits that are not zero (one text per byte string).
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard let count = decodedCount(text) else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        return out.withUnsafeMutableBytes { decode(text, into: $0) } ? out : nil
    }

    /// The bytes of unpadded base64url `text` decoded straight into zeroing memory, for a
    /// secret such as a PRF output (docs/PASSKEY.md §P4.5): no other copy of the bytes is
    /// made. Nil under the same rules as ``decode(_:)``.
    public static func decodeSecret(_ text: some Collection<UInt8>) -> SecureBytes? {
        guard let count = decodedCount(text) else { return nil }
        let out = SecureBytes(count: count)
        return out.withUnsafeMutableBytes { decode(text, into: $0) } ? out : nil
    }

    /// The number of bytes `text` decodes to; nil for a length of 1 mod 4.
    private static func decodedCount(_ text: some Collection<UInt8>) -> Int? {
        let remainder = text.count % 4
        guard remainder != 1 else { return nil }
        return text.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes `text` into `output`, which holds exactly ``decodedCount(_:)`` bytes;
    /// false for any other character or unused bits that are not zero.
    private static func decode(_ text: some Collection<UInt8>, into output: UnsafeMutableRawBufferPointer) -> Bool {
        var value = UInt32(0), bits = 0, written = 0
        defer { value = 0 }
        for character in text {
            guard let digit = Self.value(of: character) else { return false }
            value = value << 6 | UInt32(digit)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output[written] = UInt8(truncatingIfNeeded: value >> UInt32(bits))
                written += 1
            }
        }
        return value & ((1 << UInt32(bits)) - 1) == 0 && written == output.count
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
