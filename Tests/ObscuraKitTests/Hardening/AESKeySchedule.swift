/// The AES-256 key expansion (FIPS 197 §5.2), just far enough to recognise a key
/// schedule in memory: BoringSSL's AES-NI schedule starts with the 32 key bytes followed
/// by round key 2, so a copy of a key followed by that round key is a schedule left by the
/// crypto library, not a copy the product made (see MemoryHygieneTests).
enum AESKeySchedule {
    /// Bytes 32..<48 of the expanded key: the words w[8] ... w[11].
    static func roundKey2(_ key: [UInt8]) -> [UInt8] {
        precondition(key.count == 32)
        var w = (0..<8).map { Array(key[($0 * 4)..<($0 * 4 + 4)]) }
        for i in 8..<12 {
            var t = w[i - 1]
            if i % 8 == 0 {
                t = [t[1], t[2], t[3], t[0]].map { sbox[Int($0)] }
                t[0] ^= 0x01  // Rcon[1]
            } else if i % 8 == 4 {
                t = t.map { sbox[Int($0)] }
            }
            w.append(zip(w[i - 8], t).map { $0 ^ $1 })
        }
        return w[8..<12].flatMap { $0 }
    }

    /// The S-box, computed: the multiplicative inverse in GF(2^8), then the affine map.
    static let sbox: [UInt8] = (0..<256).map { x in
        func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var a = a, b = b, p: UInt8 = 0
            while b != 0 {
                if b & 1 != 0 { p ^= a }
                a = (a << 1) ^ (a & 0x80 != 0 ? 0x1B : 0)
                b >>= 1
            }
            return p
        }
        let inverse = x == 0 ? 0 : (1...255).first { multiply(UInt8(x), UInt8($0)) == 1 }.map(UInt8.init)!
        var s = inverse
        for shift in 1...4 { s ^= (inverse << shift) | (inverse >> (8 - shift)) }
        return s ^ 0x63
    }
}
