import Foundation
import ObscuraCrypto

/// Estimates how many guesses a password takes, in the manner of zxcvbn (Wheeler,
/// USENIX Security 2016): every stretch of the password that a pattern explains gets
/// that pattern's guess count, and the password costs its cheapest decomposition into
/// stretches, characters no pattern explains being searched by brute force.
///
/// The password is read from ``SecureBytes`` into arrays that are zeroed before the
/// estimate returns; it never becomes a `String`, and the estimate holds none of it.
public enum PasswordEstimator {
    /// Characters analysed; any beyond add brute-force guesses only.
    public static let analysedLength = 64

    /// Estimates `password`; `referenceYear` is the year dates are guessed around (this
    /// year by default).
    public static func estimate(_ password: SecureBytes, referenceYear: Int = currentYear) -> PasswordEstimate {
        var text = PasswordText(password, limit: analysedLength)
        defer { text.wipe() }
        var estimate = estimate(text, referenceYear: referenceYear)
        let rest = countCharacters(password) - text.count
        if rest > 0 {
            // Unread characters, at the smallest class size (digits): an underestimate.
            let extra = Double(rest) * log10(10)
            estimate.log10Guesses += extra
            estimate.parts.append(.init(pattern: .bruteforce, length: rest, log10Guesses: extra))
        }
        return estimate
    }

    /// This year, in UTC.
    public static var currentYear: Int {
        Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year ?? 2025
    }

    static func estimate(_ text: PasswordText, referenceYear: Int) -> PasswordEstimate {
        let n = text.count
        guard n > 0 else { return PasswordEstimate(log10Guesses: 0, parts: []) }
        var matches = PasswordMatches(count: n)
        DictionaryMatcher(dictionary: .shared).match(text, into: &matches)
        KeyboardMatcher().match(text, into: &matches)
        SequenceMatcher().match(text, into: &matches)
        DateMatcher(referenceYear: referenceYear).match(text, into: &matches)
        RepeatMatcher().match(text, into: &matches) { unit in
            var piece = text.slice(unit)
            defer { piece.wipe() }
            return estimate(piece, referenceYear: referenceYear).log10Guesses
        }
        offerBruteforce(text, into: &matches)
        return cheapestDecomposition(matches)
    }

    /// Every stretch as a brute-force search over the character classes it uses.
    private static func offerBruteforce(_ text: PasswordText, into matches: inout PasswordMatches) {
        for start in 0..<text.count {
            var sizes: Set<Int> = []
            for end in (start + 1)...text.count {
                sizes.insert(PasswordText.classSize(text.scalars[end - 1]))
                let alphabet = Double(sizes.reduce(0, +))
                matches.offer(start, end, log10Guesses: Double(end - start) * log10(alphabet), as: .bruteforce)
            }
        }
    }

    /// The decomposition that minimises k! times the product of its k parts' guesses
    /// (the k! counts the orders in which an attacker may combine k patterns).
    static func cheapestDecomposition(_ matches: PasswordMatches) -> PasswordEstimate {
        let n = matches.count
        // best[k][e]: the cheapest cover of the first e characters by k parts.
        var best = Array(repeating: Array(repeating: Double.infinity, count: n + 1), count: n + 1)
        var from = Array(repeating: Array(repeating: 0, count: n + 1), count: n + 1)
        best[0][0] = 0
        for k in 1...n {
            for end in k...n {
                for start in (k - 1)..<end where best[k - 1][start] < .infinity {
                    let total = best[k - 1][start] + matches.cost(start, end)
                    if total < best[k][end] {
                        best[k][end] = total
                        from[k][end] = start
                    }
                }
            }
        }
        var bestK = 1, bestTotal = Double.infinity
        for k in 1...n where best[k][n] < .infinity {
            let total = best[k][n] + lgamma(Double(k + 1)) / log(10.0)
            if total < bestTotal { bestTotal = total; bestK = k }
        }
        var parts: [PasswordEstimate.Part] = []
        var end = n
        for k in stride(from: bestK, through: 1, by: -1) {
            let start = from[k][end]
            parts.append(.init(pattern: matches.pattern(start, end) ?? .bruteforce, length: end - start,
                               log10Guesses: matches.cost(start, end)))
            end = start
        }
        return PasswordEstimate(log10Guesses: bestTotal, parts: parts.reversed())
    }

    /// Characters in `password` as the estimator counts them.
    private static func countCharacters(_ password: SecureBytes) -> Int {
        // Counted in place: a filtered copy would be the password in an array nobody zeroes.
        password.withUnsafeBytes { raw in raw.reduce(0) { $1 & 0xC0 != 0x80 ? $0 + 1 : $0 } }
    }
}
