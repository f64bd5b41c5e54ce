import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// Key texts (docs/FORMAT.md §4.3).
@Suite struct KeyTextTests {
    /// The vector of §4.3: the key 00 01 02 … 1f.
    static let vectorKey = SecureBytes(copying: (0..<32).map { UInt8($0) })
    static let vectorOuter = "OUTER-000G-40R4-0M30-E209-185G-R38E-1W81-24GK-2GAH-C5RR-34D1-P70X-3RFG-WS8W"
    static let vectorDecoy = "DECOY-000G-40R4-0M30-E209-185G-R38E-1W81-24GK-2GAH-C5RR-34D1-P70X-3RFG-AWEG"

    static func text(_ s: String) -> SecureBytes { SecureBytes(copying: Array(s.utf8)) }
    static func string(_ b: SecureBytes) -> String { b.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    @Test func vector() throws {
        #expect(Self.string(KeyText.encode(Self.vectorKey, kind: .outer)) == Self.vectorOuter)
        #expect(Self.string(KeyText.encode(Self.vectorKey, kind: .decoy)) == Self.vectorDecoy)
        #expect(try KeyText.decode(Self.text(Self.vectorOuter), kind: .outer) == Self.vectorKey)
        #expect(try KeyText.decode(Self.text(Self.vectorDecoy), kind: .decoy) == Self.vectorKey)
        #expect(Self.vectorOuter.utf8.count == KeyText.displayLength)
    }

    @Test(arguments: KeyKind.allCases) func roundTrip(kind: KeyKind) throws {
        let random = SeededRandom(seed: "key text round trip")
        for _ in 0..<200 {
            let key = SecureBytes(randomCount: 32, using: random)
            let text = KeyText.encode(key, kind: kind)
            #expect(text.count == KeyText.displayLength)
            #expect(try KeyText.decode(text, kind: kind) == key)
        }
    }

    @Test func lenientDecoding() throws {
        // Lower case, O for 0, I and L for 1, no dashes, spaces, a line break, a tab.
        let typed = "outer 0oog 4or4 om3o e2o9 i85g r38e iw8i 24gk 2gah c5rr 34dl p7ox\n3rfg\tws8w\n"
        #expect(try KeyText.decode(Self.text(typed), kind: .outer) == Self.vectorKey)
        let joined = Self.vectorDecoy.replacingOccurrences(of: "-", with: "").lowercased()
        #expect(try KeyText.decode(Self.text(joined), kind: .decoy) == Self.vectorKey)
    }

    @Test func anOuterTextIsRefusedWhereADecoySecretIsAsked() {
        #expect(throws: KeyError.invalidKeyText) { try KeyText.decode(Self.text(Self.vectorOuter), kind: .decoy) }
        #expect(throws: KeyError.invalidKeyText) { try KeyText.decode(Self.text(Self.vectorDecoy), kind: .outer) }
        // The right word on the other kind's body and check: the check group differs.
        let swapped = "DECOY" + Self.vectorOuter.dropFirst(5)
        #expect(throws: KeyError.invalidKeyText) { try KeyText.decode(Self.text(swapped), kind: .decoy) }
    }

    @Test func malformedTextsAreRefused() {
        let malformed = [
            "", "OUTER", String(Self.vectorOuter.dropLast()), Self.vectorOuter + "0",
            Self.vectorOuter.replacingOccurrences(of: "WS8W", with: "WS8U"),  // U is not a symbol
            "OUTER-" + String(repeating: "0", count: 51) + "Z-" + "0000",    // padding bits set
            Self.vectorOuter.replacingOccurrences(of: "-", with: "_"),
            Self.vectorOuter + "é",
        ]
        for text in malformed {
            #expect(throws: KeyError.invalidKeyText, "\(text)") { try KeyText.decode(Self.text(text), kind: .outer) }
        }
    }

    /// Every substitution of one symbol of the body or check group by another symbol of
    /// another value is refused. For a 20-bit check this holds for a given key with
    /// probability about 1 − 1736 / 2^20; these keys are fixed, so the test is exact.
    @Test(arguments: KeyKind.allCases) func everySingleSymbolTypoIsDetected(kind: KeyKind) throws {
        let random = SeededRandom(seed: "key text typos")
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        for key in [Self.vectorKey, SecureBytes(randomCount: 32, using: random), SecureBytes(randomCount: 32, using: random)] {
            let good = KeyText.encode(key, kind: kind).withUnsafeBytes { Array($0) }
            var tried = 0
            for position in good.indices where good[position] != UInt8(ascii: "-") && position >= 5 {
                for symbol in alphabet where symbol != good[position] {
                    var typo = good
                    typo[position] = symbol
                    #expect(throws: KeyError.invalidKeyText, "position \(position) as \(UnicodeScalar(symbol))") {
                        try KeyText.decode(SecureBytes(copying: typo), kind: kind)
                    }
                    tried += 1
                }
            }
            #expect(tried == 56 * 31)
            // The word too: one wrong letter.
            var word = good
            word[1] = UInt8(ascii: "X")
            #expect(throws: KeyError.invalidKeyText) { try KeyText.decode(SecureBytes(copying: word), kind: kind) }
        }
    }

    @Test func checkGroupIsTheFirstTwentyBitsOfTheLabelledHash() {
        // SHA-256("obscura key check v1" ‖ 4F ‖ key) starts e6 51 ce: 11100 11001 01000 11100 → W S 8 W.
        let input = Array("obscura key check v1".utf8) + [0x4F] + (0..<32).map { UInt8($0) }
        #expect(Array(SHA256Digest.hash(input).prefix(3)) == [0xE6, 0x51, 0xCE])
        #expect(Self.string(KeyText.checkGroup(Self.vectorKey, kind: .outer)) == "WS8W")
        #expect(Self.string(KeyText.checkGroup(Self.vectorKey, kind: .decoy)) == "AWEG")
    }
}

/// Confirming an export by typing one group and the check group back (§4.3).
@Suite struct TypeBackCheckTests {
    @Test func rightAnswerForEveryGroup() {
        let key = KeyTextTests.vectorKey
        let groups = KeyTextTests.vectorOuter.split(separator: "-").map(String.init)
        for k in 1...13 {
            let check = TypeBackCheck(group: k)
            #expect(check.matches(KeyTextTests.text(groups[k] + "-" + groups[14]), key: key, kind: .outer), "group \(k)")
            #expect(check.matches(KeyTextTests.text((groups[k] + " " + groups[14]).lowercased()), key: key, kind: .outer))
            // The other kind's check group is not an answer.
            #expect(!check.matches(KeyTextTests.text(groups[k] + "-AWEG"), key: key, kind: .outer))
            // Nor is another group.
            let other = k == 13 ? 1 : k + 1
            if groups[other] != groups[k] {
                #expect(!check.matches(KeyTextTests.text(groups[other] + "-" + groups[14]), key: key, kind: .outer))
            }
        }
    }

    @Test func wrongAnswers() {
        let key = KeyTextTests.vectorKey
        let check = TypeBackCheck(group: 2)  // 40R4, check WS8W
        for typed in ["40R4-WS8X", "40R5-WS8W", "40R4", "40R4-WS8W-0", "40R4WS8", "40R4-WS8U", "", "WS8W-40R4"] {
            #expect(!check.matches(KeyTextTests.text(typed), key: key, kind: .outer), "\(typed)")
        }
        #expect(check.matches(KeyTextTests.text("4oR4ws8w"), key: key, kind: .outer))
    }

    @Test func groupIsUniformOverThirteen() {
        let random = SeededRandom(seed: "type back groups")
        var counts = [Int](repeating: 0, count: 14)
        for _ in 0..<2600 { counts[TypeBackCheck(using: random).group] += 1 }
        #expect(counts[0] == 0)
        // Each group near 200: a chi-square bound far outside chance (12 degrees of freedom).
        let chiSquare = counts[1...].reduce(0.0) { $0 + pow(Double($1) - 200, 2) / 200 }
        #expect(chiSquare < 40, "counts \(counts)")
    }
}
