import ObscuraCrypto
import ObscuraKeys

/// A vault's drop code (docs/FORMAT.md §10.1): its drop public key as a key text in the
/// manner of §4.3, `DROPS-XXXX-…-XXXX-CCCC`, with its own word and check byte so that a
/// drop code is never read as an outer key or a decoy secret, nor one of those as a code.
///
/// The code is public: whoever holds it can add to the vault and do nothing else. So it
/// is a `String`, unlike the secret key texts.
public struct DropCode: Sendable, Equatable {
    /// §10.1: the word that starts a drop code.
    static let word = "DROPS"
    /// §10.1: the byte after §4.3's check label; `P`, for public.
    static let checkByte: UInt8 = 0x50

    /// The 32-byte X25519 public key.
    public let publicKey: [UInt8]

    /// The code of `publicKey`.
    public init(publicKey: [UInt8]) {
        precondition(publicKey.count == HPKEExporter.keySize, "a drop key is 32 bytes")
        self.publicKey = publicKey
    }

    /// Reads a typed or pasted code as leniently as §4.3 reads a key text: any case, O as
    /// 0, I and L as 1, separators (dash, space, tab, line breaks) anywhere.
    ///
    /// - Throws: ``DropError/invalidCode`` for a wrong word, length, symbol, padding or check.
    public init(text: String) throws {
        guard let symbols = KeyText.symbols(of: SecureBytes(copying: Array(text.utf8))),
              symbols.count == KeyText.symbolCount else { throw DropError.invalidCode }
        let all = symbols.withUnsafeBytes { Array($0) }
        guard zip(all.prefix(KeyText.wordLength), Self.word.utf8).allSatisfy({ KeyText.upper($0) == $1 }) else {
            throw DropError.invalidCode
        }
        let bodyEnd = KeyText.wordLength + KeyText.bodySymbols
        guard let key = Crockford32.decode(SecureBytes(copying: all[KeyText.wordLength..<bodyEnd]), byteCount: HPKEExporter.keySize),
              let typed = KeyText.values(of: SecureBytes(copying: all[bodyEnd...])),
              let expected = KeyText.values(of: SecureBytes(copying: Array(Self.checkGroup(key.withUnsafeBytes { Array($0) }).utf8))),
              typed == expected
        else { throw DropError.invalidCode }
        self.init(publicKey: key.withUnsafeBytes { Array($0) })
    }

    /// The display text: `DROPS`, 13 groups of 4 symbols and the check group, joined by `-`.
    public var text: String {
        let body = Crockford32.encode(SecureBytes(copying: publicKey)).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        var groups = [Self.word]
        var rest = Substring(body)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(KeyText.groupSize)))
            rest = rest.dropFirst(KeyText.groupSize)
        }
        groups.append(Self.checkGroup(publicKey))
        return groups.joined(separator: "-")
    }

    /// The first 20 bits of SHA-256("obscura key check v1" ‖ `50` ‖ key), as 4 symbols (§4.3).
    static func checkGroup(_ key: [UInt8]) -> String {
        let digest = SHA256Digest.hash(Array(KeyText.checkLabel.utf8) + [checkByte] + key)
        let symbols = Crockford32.encode(SecureBytes(copying: digest.prefix(3)))
        return symbols.withUnsafeBytes { String(decoding: $0.prefix(KeyText.groupSize), as: UTF8.self) }
    }
}
