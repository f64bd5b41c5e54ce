/// Hex text of secrets, kept in zeroing memory: a token or a key written as text never
/// passes through a String.
extension SecureBytes {
    /// These bytes as lower-case hex digits (ASCII), two a byte, in a new zeroing buffer.
    public func lowercaseHex() -> SecureBytes {
        let text = SecureBytes(count: count * 2)
        withUnsafeBytes { bytes in
            text.withUnsafeMutableBytes { hex in
                let digits = Array("0123456789abcdef".utf8)
                for (i, byte) in bytes.enumerated() {
                    hex[2 * i] = digits[Int(byte >> 4)]
                    hex[2 * i + 1] = digits[Int(byte & 0x0f)]
                }
            }
        }
        return text
    }

    /// The bytes that `digits` (ASCII lower-case hex, two a byte) write, decoded straight
    /// into zeroing memory: ``lowercaseHex()`` read back. Nil for an odd count or any other
    /// character, upper-case digits included.
    public convenience init?(lowercaseHex digits: UnsafeRawBufferPointer) {
        guard digits.count % 2 == 0 else { return nil }
        self.init(count: digits.count / 2)
        let valid = withUnsafeMutableBytes { out -> Bool in
            for i in 0..<out.count {
                guard let high = Self.digitValue(digits[2 * i]), let low = Self.digitValue(digits[2 * i + 1]) else { return false }
                out[i] = high << 4 | low
            }
            return true
        }
        guard valid else { return nil }
    }

    private static func digitValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
