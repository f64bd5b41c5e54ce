import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

extension VectorSet {
    // MARK: Key texts (§4.3)

    /// `key/`: key texts, each read as the kind its `kind` field asks for.
    static func keyVectors() -> [String: [UInt8]] {
        let random = SeededRandom(seed: "obscura key vectors v1")
        let key = SecureBytes(randomCount: KeyKind.byteCount, using: random)
        let keyHex = key.withUnsafeBytes { hex($0) }
        let outer = KeyText.encode(key, kind: .outer).withUnsafeBytes { Array($0) }
        let decoy = KeyText.encode(key, kind: .decoy).withUnsafeBytes { Array($0) }
        var out = [String: [UInt8]]()

        func add(_ name: String, _ kind: KeyKind, _ text: [UInt8], key: String? = keyHex, _ comment: String) {
            var fields = [("expect", key == nil ? "failure" : "success"), ("kind", kind == .outer ? "outer" : "decoy")]
            if let key { fields.append(("key", key)) }
            fields.append(("comment", comment))
            out["key/" + name] = file(fields, text)
        }
        /// `text` with the symbol at `offset` replaced.
        func typo(_ text: [UInt8], _ offset: Int, _ symbol: Character) -> [UInt8] {
            text.with(offset, symbol.asciiValue!)
        }

        add("outer", .outer, outer, "an outer key as the CLI prints it")
        add("decoy", .decoy, decoy, "the same key as a decoy secret: another word and another check group")
        let counting = SecureBytes(copying: (0..<32).map { UInt8($0) })
        add("counting", .outer, KeyText.encode(counting, kind: .outer).withUnsafeBytes { Array($0) },
            key: counting.withUnsafeBytes { hex($0) }, "the key 00 01 ... 1f of the example in §4.3")
        let lenient = String(decoding: outer, as: UTF8.self).lowercased()
            .replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
            .replacingOccurrences(of: "1", with: "l")
        add("lenient", .outer, Array((lenient + "\n").utf8), "lower case, o for 0, l for 1, spaces for dashes, a final line break")
        add("no_separators", .decoy, decoy.filter { $0 != UInt8(ascii: "-") }, "separators are optional")
        add("outer_as_decoy", .decoy, outer, key: nil, "an outer key's text where a decoy secret is asked")
        add("word_swapped", .decoy, Array("DECOY".utf8) + outer.dropFirst(5), key: nil,
            "the decoy word on an outer key's body and check group: the check group is the outer one")
        add("check_typo", .outer, typo(outer, outer.count - 1, outer.last == UInt8(ascii: "0") ? "1" : "0"), key: nil,
            "the last check symbol changed")
        let bodySymbol = 6 + 5 * 3 + 1
        add("body_typo", .outer, typo(outer, bodySymbol, outer[bodySymbol] == UInt8(ascii: "Z") ? "Y" : "Z"), key: nil,
            "a body symbol changed: another key, whose check group differs")
        add("bad_symbol", .outer, typo(outer, bodySymbol, "U"), key: nil, "U is not a Crockford symbol")
        add("group_missing", .outer, Array(outer[0..<6] + outer[11...]), key: nil, "the first body group left out")
        add("no_word", .outer, Array(outer.dropFirst(6)), key: nil, "the body and check group alone")
        // The last body symbol carries 1 key bit and 4 padding bits: setting a padding
        // bit leaves the key, and so the check group, unchanged.
        let last = outer.count - 6
        let value = Crockford32.value(of: outer[last])!
        add("padding_set", .outer, outer.with(last, Crockford32.alphabet[value | 1]), key: nil,
            "a padding bit of the last body symbol set: the check group still matches, the padding does not")
        return out
    }
}
