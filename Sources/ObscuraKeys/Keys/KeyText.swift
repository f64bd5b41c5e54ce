import ObscuraCrypto

/// The text form of an outer key or decoy secret (docs/FORMAT.md §4.3):
/// `OUTER-XXXX-…-XXXX-CCCC`, the kind word, the 32 bytes in Crockford base32 as 13
/// groups of 4, and a group of 4 check symbols.
///
/// Texts are ASCII bytes in ``SecureBytes``, never `String`: the text is the key. The
/// one copy that cannot be wiped is the one a terminal shows.
public enum KeyText {
    /// Symbols per group.
    public static let groupSize = 4
    /// Body groups: 52 symbols (256 bits and 4 zero padding bits) in groups of 4.
    public static let bodyGroups = 13
    /// The SHA-256 prefix of the check group's input (§4.3).
    package static let checkLabel = "obscura key check v1"

    package static let bodySymbols = bodyGroups * groupSize
    package static let wordLength = 5
    /// Symbols in a text, separators aside: word, body, check group.
    package static let symbolCount = wordLength + bodySymbols + groupSize
    /// The displayed length: the symbols and a dash before each group.
    public static let displayLength = symbolCount + bodyGroups + 1

    /// The display text of `key`: `OUTER-` or `DECOY-`, 13 body groups and the check
    /// group, joined by `-`, upper case, with no line break.
    public static func encode(_ key: SecureBytes, kind: KeyKind) -> SecureBytes {
        precondition(key.count == KeyKind.byteCount, "a key is 32 bytes")
        let body = Crockford32.encode(key)
        let check = checkGroup(key, kind: kind)
        let out = SecureBytes(count: displayLength)
        out.withUnsafeMutableBytes { text in
            var n = 0
            for byte in kind.word.utf8 {
                text[n] = byte
                n += 1
            }
            func group(_ symbols: UnsafeRawBufferPointer) {
                text[n] = UInt8(ascii: "-")
                n += 1
                for symbol in symbols {
                    text[n] = symbol
                    n += 1
                }
            }
            body.withUnsafeBytes { symbols in
                for g in 0..<bodyGroups {
                    group(UnsafeRawBufferPointer(rebasing: symbols[(g * groupSize)..<((g + 1) * groupSize)]))
                }
            }
            check.withUnsafeBytes { group($0) }
        }
        return out
    }

    /// The key a text holds, if it is a valid text of `kind`.
    ///
    /// Decoding is lenient as §4.2's: any case, O read as 0, I and L as 1, and dashes,
    /// spaces, tabs and line breaks ignored anywhere. A wrong kind word, a symbol outside
    /// the alphabet, a wrong length, nonzero padding bits or a wrong check group (compared
    /// in constant time) all throw the same ``KeyError/invalidKeyText``.
    public static func decode(_ text: SecureBytes, kind: KeyKind) throws -> SecureBytes {
        guard let symbols = symbols(of: text), symbols.count == symbolCount else { throw KeyError.invalidKeyText }
        let wordMatches = symbols.withUnsafeBytes { s in
            zip(s.prefix(wordLength), kind.word.utf8).allSatisfy { upper($0) == $1 }
        }
        guard wordMatches else { throw KeyError.invalidKeyText }
        let body = symbols.withUnsafeBytes {
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[wordLength..<(wordLength + bodySymbols)]))
        }
        guard let key = Crockford32.decode(body, byteCount: KeyKind.byteCount) else { throw KeyError.invalidKeyText }
        let typed = symbols.withUnsafeBytes {
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[(wordLength + bodySymbols)...]))
        }
        guard let typedValues = values(of: typed), typedValues == values(of: checkGroup(key, kind: kind))! else {
            throw KeyError.invalidKeyText
        }
        return key
    }

    /// The 4 check symbols of `key`: the first 20 bits of
    /// SHA-256("obscura key check v1" ‖ kind byte ‖ key) in Crockford base32.
    package static func checkGroup(_ key: SecureBytes, kind: KeyKind) -> SecureBytes {
        let label = Array(checkLabel.utf8)
        let input = SecureBytes(count: label.count + 1 + key.count)
        input.withUnsafeMutableBytes { bytes in
            bytes.copyBytes(from: label)
            bytes[label.count] = kind.checkByte
            key.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[(label.count + 1)...]).copyMemory(from: $0) }
        }
        var digest = SHA256Digest.hash(input)
        defer { digest.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
        // 24 bits make 5 symbols; the first 4 carry exactly the first 20 bits.
        let symbols = Crockford32.encode(SecureBytes(copying: digest.prefix(3)))
        return symbols.withUnsafeBytes { SecureBytes(copying: $0.prefix(groupSize)) }
    }

    /// The symbols of `text` with every separator removed, or nil when a byte is not
    /// printable ASCII.
    package static func symbols(of text: SecureBytes) -> SecureBytes? {
        let kept = text.withUnsafeBytes { $0.reduce(0) { $0 + (isSeparator($1) ? 0 : 1) } }
        let out = SecureBytes(count: kept)
        let ok: Bool = text.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                var n = 0
                for byte in input where !isSeparator(byte) {
                    guard byte > 0x20 && byte < 0x7F else { return false }
                    output[n] = byte
                    n += 1
                }
                return true
            }
        }
        return ok ? out : nil
    }

    /// The 5-bit values of `symbols` (each lenient as §4.2), or nil on a symbol outside
    /// the alphabet. Values rather than symbols, so that `o` and `0` compare equal.
    package static func values(of symbols: SecureBytes) -> SecureBytes? {
        let out = SecureBytes(count: symbols.count)
        let ok: Bool = symbols.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                for (i, symbol) in input.enumerated() {
                    guard let value = Crockford32.value(of: symbol) else { return false }
                    output[i] = UInt8(value)
                }
                return true
            }
        }
        return ok ? out : nil
    }

    package static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    package static func upper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}
