import Foundation

/// Finds words of the ``PasswordDictionary`` in a password, in any capitalisation, with
/// l33t substitutions ("p@ssw0rd") and with one letter of a long word left out
/// ("troubador"), the variations a cracker's rules try first.
struct DictionaryMatcher {
    let dictionary: PasswordDictionary

    /// The letters a character may stand for in l33t spelling.
    static let l33t: [UInt32: [UInt8]] = [
        "4": "a", "@": "a", "8": "b", "(": "c", "{": "c", "3": "e", "6": "g", "9": "g",
        "1": "il", "!": "i", "|": "il", "0": "o", "$": "s", "5": "s", "7": "lt", "+": "t",
        "2": "z", "%": "x",
    ].reduce(into: [:]) { table, entry in
        table[entry.key.unicodeScalars.first!.value] = Array(entry.value.utf8)
    }

    /// The letters that have a l33t spelling.
    static let substitutable: Set<UInt8> = Set(l33t.values.joined())

    /// The shortest word that may match with a letter left out.
    static let minimumLengthForDeletion = 5

    /// Offers every dictionary match in `text` to `matches`.
    func match(_ text: PasswordText, into matches: inout PasswordMatches) {
        let all = 0..<dictionary.words.count
        for start in 0..<text.count {
            var walk = Walk(start: start, substitutions: 0, deleted: false)
            walk.extend(all, position: start, depth: 0, text: text, matcher: self, matches: &matches)
        }
    }

    /// One depth-first walk down the sorted table from a start position.
    private struct Walk {
        let start: Int
        var substitutions: Int
        var deleted: Bool

        mutating func extend(_ range: Range<Int>, position: Int, depth: Int, text: PasswordText,
                             matcher: DictionaryMatcher, matches: inout PasswordMatches) {
            let dictionary = matcher.dictionary
            if position > start, let index = dictionary.wordEnding(in: range, depth: depth),
               !deleted || depth >= DictionaryMatcher.minimumLengthForDeletion {
                matches.offer(start, position, log10Guesses: matcher.cost(of: index, text: text, start..<position,
                                                                           substitutions: substitutions, deleted: deleted),
                              as: dictionary.patterns[index])
            }
            guard !range.isEmpty else { return }
            if position < text.count {
                let typed = text.lower[position]
                if typed < 0x80 {
                    let next = dictionary.narrow(range, depth: depth, to: UInt8(typed))
                    if !next.isEmpty {
                        extend(next, position: position + 1, depth: depth + 1, text: text, matcher: matcher, matches: &matches)
                    }
                }
                for letter in DictionaryMatcher.l33t[typed] ?? [] {
                    let next = dictionary.narrow(range, depth: depth, to: letter)
                    guard !next.isEmpty else { continue }
                    substitutions += 1
                    extend(next, position: position + 1, depth: depth + 1, text: text, matcher: matcher, matches: &matches)
                    substitutions -= 1
                }
            }
            // A letter of the word that the password leaves out, once, inside the word.
            if !deleted, depth >= 1, position > start {
                deleted = true
                var cursor = range.lowerBound
                if dictionary.words[cursor].count == depth { cursor += 1 }
                while cursor < range.upperBound {
                    let letter = dictionary.words[cursor][depth]
                    let next = dictionary.narrow(cursor..<range.upperBound, depth: depth, to: letter)
                    extend(next, position: position, depth: depth + 1, text: text, matcher: matcher, matches: &matches)
                    cursor = next.upperBound
                }
                deleted = false
            }
        }
    }

    /// log10 of the guesses for the word at `index` spelt as `text[range]`: its rank,
    /// times the capitalisations, the l33t spellings and the left-out letters an attacker
    /// would try as many of before reaching this one.
    func cost(of index: Int, text: PasswordText, _ range: Range<Int>, substitutions: Int, deleted: Bool) -> Double {
        let word = dictionary.words[index]
        var guesses = log10(Double(dictionary.ranks[index]))
        guesses += Self.capitalisationCost(text.scalars[range])
        if substitutions > 0 {
            let candidates = word.filter { Self.substitutable.contains($0) }.count
            guesses += log10VariantCount(max(candidates, substitutions), upTo: substitutions)
        }
        if deleted { guesses += log10(Double(word.count)) }
        return guesses
    }

    /// log10 of the capitalisations tried before this one: none for lower case, two for
    /// a first or last capital or all capitals, else the ways to place the capitals.
    static func capitalisationCost(_ token: ArraySlice<UInt32>) -> Double {
        let upper = token.filter(PasswordText.isUpper).count
        let lower = token.filter(PasswordText.isLower).count
        if upper == 0 { return 0 }
        if lower == 0 { return log10(2) }
        let letters = token.filter { PasswordText.isUpper($0) || PasswordText.isLower($0) }
        if upper == 1, PasswordText.isUpper(letters.first!) || PasswordText.isUpper(letters.last!) { return log10(2) }
        return log10VariantCount(upper + lower, upTo: min(upper, lower))
    }
}
