import ObscuraCrypto

/// A 32-byte key as 24 BIP39 English words (docs/FORMAT.md §4.3, "Words"): the key is
/// BIP39 entropy of 256 bits, followed by the first 8 bits of its SHA-256 as the
/// checksum, read as 24 indices of 11 bits into the standard English wordlist. Any
/// BIP39 tool turns the words back into the same 32 bytes.
///
/// The words say nothing of which key they are: the command that reads them is told
/// (`keys import outer`), and an outer key must open the directory. Typed words are
/// read leniently: any case, any white space or dashes between them, and each word by
/// its first four letters (BIP39 words differ within their first four). Neither the key
/// nor its words pass through a `String`.
public enum KeyWords {
    /// Words per key.
    public static let count = 24

    /// The list, by index.
    static let list: [[UInt8]] = englishList.split(separator: " ").map { Array($0.utf8) }

    /// The 24 words of `key`, one space apart, in lower case.
    public static func encode(_ key: SecureBytes) -> SecureBytes {
        precondition(key.count == KeyKind.byteCount, "a key is 32 bytes")
        let indices = key.withUnsafeBytes { raw -> [Int] in
            let bits = Array(raw) + [SHA256Digest.hash(raw)[0]]
            defer { var wipe = bits; wipe.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            return (0..<count).map { word in
                (0..<11).reduce(0) { value, bit in
                    let n = word * 11 + bit
                    return value << 1 | Int(bits[n / 8] >> (7 - n % 8) & 1)
                }
            }
        }
        let buffer = SecureBuffer(capacity: count * 9)
        for (i, index) in indices.enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: " ")) }
            for byte in list[index] { buffer.append(byte) }
        }
        return buffer.take()
    }

    /// Whether `text` looks like words rather than a key text: at least 12 groups (split
    /// at white space and dashes), every one letters only. A key text has 15 groups of
    /// which, but for a chance of about 10^-9, some hold a digit.
    public static func looksLikeWords(_ text: SecureBytes) -> Bool {
        text.withUnsafeBytes { raw in
            var groups = 0, inGroup = false
            for byte in raw {
                if isLetter(byte) {
                    if !inGroup { groups += 1; inGroup = true }
                } else if isSeparator(byte) {
                    inGroup = false
                } else {
                    return false
                }
            }
            return groups >= 12
        }
    }

    /// The key that `text` spells.
    ///
    /// - Throws: ``KeyError/invalidWords`` unless it is 24 words of the list (or their
    ///   first four letters) whose checksum matches: one error for every failure.
    public static func decode(_ text: SecureBytes) throws -> SecureBytes {
        try text.withUnsafeBytes { raw -> SecureBytes in
            var indices = [Int]()
            var word = [UInt8]()
            defer { word.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            func finish() throws {
                guard !word.isEmpty else { return }
                guard indices.count < count, let index = lookUp(word) else { throw KeyError.invalidWords }
                indices.append(index)
                word.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) }
                word.removeAll(keepingCapacity: true)
            }
            for byte in raw {
                if isLetter(byte) {
                    word.append(byte | 0x20)
                } else if isSeparator(byte) {
                    try finish()
                } else {
                    throw KeyError.invalidWords
                }
            }
            try finish()
            guard indices.count == count else { throw KeyError.invalidWords }
            var bits = [UInt8](repeating: 0, count: 33)
            defer { bits.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            for (i, index) in indices.enumerated() {
                for bit in 0..<11 where index >> (10 - bit) & 1 == 1 {
                    let n = i * 11 + bit
                    bits[n / 8] |= 1 << (7 - n % 8)
                }
            }
            let key = SecureBytes(copying: bits[0..<32])
            let check = key.withUnsafeBytes { SHA256Digest.hash($0)[0] }
            guard ConstantTime.equals([check], [bits[32]]) else { throw KeyError.invalidWords }
            return key
        }
    }

    /// The index of the word whose bytes are `typed`, or of the only word starting with
    /// them when they are its first four or more letters.
    static func lookUp(_ typed: [UInt8]) -> Int? {
        // Binary search: the list is in byte order.
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if list[mid].lexicographicallyPrecedes(typed) { low = mid + 1 } else { high = mid }
        }
        if low < list.count && list[low] == typed { return low }
        guard typed.count >= 4, low < list.count, list[low].starts(with: typed) else { return nil }
        let next = low + 1
        return next < list.count && list[next].starts(with: typed) ? nil : low
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "-")
    }
}
