/// The ranked word lists the estimator matches against (scripts/make-password-lists):
/// common passwords, English words and names, merged into one sorted table so that a
/// password is matched by walking it character by character, without ever copying a
/// piece of it into a key or a `String`.
struct PasswordDictionary: Sendable {
    /// The words in byte order; a word that is a prefix of others comes first.
    let words: [[UInt8]]
    /// The word's rank in its list (1 = most common), by index into ``words``.
    let ranks: [Int32]
    /// The list the rank comes from, by index into ``words``.
    let patterns: [PasswordPattern]

    /// The lists shipped with Obscura.
    static let shared = PasswordDictionary(lists: [
        (.commonPassword, commonPasswordList), (.englishWord, englishWordList), (.name, nameList),
    ])

    /// Merges `lists` (white-space separated, most common first); a word in several
    /// lists keeps its best rank.
    init(lists: [(PasswordPattern, String)]) {
        var best: [[UInt8]: (rank: Int32, pattern: PasswordPattern)] = [:]
        for (pattern, text) in lists {
            for (index, word) in text.split(whereSeparator: \.isWhitespace).enumerated() {
                let bytes = Array(word.utf8), rank = Int32(index + 1)
                if let known = best[bytes], known.rank <= rank { continue }
                best[bytes] = (rank, pattern)
            }
        }
        let sorted = best.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        words = sorted.map(\.key)
        ranks = sorted.map(\.value.rank)
        patterns = sorted.map(\.value.pattern)
    }

    /// The sub-range of `range` (whose words share a prefix of `depth` bytes) whose
    /// words continue with `byte`.
    func narrow(_ range: Range<Int>, depth: Int, to byte: UInt8) -> Range<Int> {
        let lower = firstIndex(in: range) { word in word.count > depth && word[depth] >= byte }
        let upper = firstIndex(in: lower..<range.upperBound) { word in word[depth] > byte }
        return lower..<upper
    }

    /// The index of the word of exactly `depth` bytes in `range`, if there is one.
    func wordEnding(in range: Range<Int>, depth: Int) -> Int? {
        guard let first = range.first, words[first].count == depth else { return nil }
        return first
    }

    /// The first index in `range` whose word satisfies `predicate` (which must be false
    /// then true along the range).
    private func firstIndex(in range: Range<Int>, where predicate: ([UInt8]) -> Bool) -> Int {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if predicate(words[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
