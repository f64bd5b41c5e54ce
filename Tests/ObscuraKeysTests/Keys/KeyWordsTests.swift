import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// docs/FORMAT.md §4.3, "Words": a key as 24 BIP39 English words.
@Suite struct KeyWordsTests {
    func bytes(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }
    func text(_ secret: SecureBytes) -> String { secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// BIP39's own English vectors for 256-bit entropy (trezor/python-mnemonic's vectors.json).
    static let vectors: [(entropy: String, words: String)] = [
        ("0000000000000000000000000000000000000000000000000000000000000000",
         "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art"),
        ("7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f",
         "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title"),
        ("8080808080808080808080808080808080808080808080808080808080808080",
         "letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic bless"),
        ("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
         "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote"),
        ("68a79eaca2324873eacc50cb9c6eca8cc68ea5d936f98787c60c7ebc74e6ce7c",
         "hamster diagram private dutch cause delay private meat slide toddler razor book happy fancy gospel tennis maple dilemma loan word shrug inflict delay length"),
        // docs/FORMAT.md §4.3's vector: the key 00 01 02 … 1f.
        ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
         "abandon amount liar amount expire adjust cage candy arch gather drum bullet absurd math era live bid rhythm alien crouch range attend journey unaware"),
    ]

    func key(_ hex: String) -> SecureBytes {
        var out = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return SecureBytes(copying: out)
    }

    @Test func theWordlistIsBIP39English() {
        #expect(KeyWords.list.count == 2048)
        let joined = KeyWords.list.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "\n"
        let digest = SHA256Digest.hash(Array(joined.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(digest == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
    }

    @Test(arguments: vectors) func theVectorsEncodeAndDecode(_ vector: (entropy: String, words: String)) throws {
        #expect(text(KeyWords.encode(key(vector.entropy))) == vector.words)
        #expect(try KeyWords.decode(bytes(vector.words)) == key(vector.entropy))
    }

    @Test func typedWordsAreReadLeniently() throws {
        let words = Self.vectors[4].words
        let shouted = words.uppercased().replacingOccurrences(of: " ", with: "  \n- ")
        #expect(try KeyWords.decode(bytes(shouted)) == key(Self.vectors[4].entropy))
        // Each word by its first four letters ("ham" alone would be several words).
        let short = words.split(separator: " ").map { $0.count > 4 ? String($0.prefix(4)) : String($0) }.joined(separator: " ")
        #expect(try KeyWords.decode(bytes(short)) == key(Self.vectors[4].entropy))
        #expect(KeyWords.lookUp(Array("ham".utf8)) == nil)
        #expect(KeyWords.lookUp(Array("hams".utf8)) == KeyWords.list.firstIndex(of: Array("hamster".utf8)))
    }

    @Test func everyMistakeIsOneError() {
        let words = Self.vectors[4].words.split(separator: " ").map(String.init)
        var swapped = words
        swapped.swapAt(0, 1)
        var wrongWord = words
        wrongWord[5] = "zebra"
        let cases = [
            words.dropLast().joined(separator: " "),            // 23 words
            (words + ["abandon"]).joined(separator: " "),       // 25 words
            swapped.joined(separator: " "),                     // checksum
            wrongWord.joined(separator: " "),                   // checksum
            words.joined(separator: " ").replacingOccurrences(of: "hamster", with: "hamstr"),  // not a word
            words.joined(separator: " ") + " 7",                // not a letter
        ]
        for typed in cases {
            #expect(throws: KeyError.invalidWords, "\(typed)") { try KeyWords.decode(bytes(typed)) }
        }
    }

    @Test func wordsAreToldFromAKeyText() {
        let key = key("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
        #expect(!KeyWords.looksLikeWords(KeyText.encode(key, kind: .outer)))
        #expect(!KeyWords.looksLikeWords(KeyText.encode(key, kind: .decoy)))
        #expect(KeyWords.looksLikeWords(KeyWords.encode(key)))
        // "outer" is a BIP39 word: words that begin with it are still words.
        #expect(KeyWords.looksLikeWords(bytes("outer " + Self.vectors[0].words.split(separator: " ").dropFirst().joined(separator: " "))))
    }
}
