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
}
