import Foundation

/// The cheapest known way to guess each stretch of a password: for every range of
/// characters, the fewest guesses (as log10) any matcher offered and the pattern that
/// offered it. Only the cheapest matters to the decomposition, so matchers just offer.
struct PasswordMatches {
    let count: Int
    private var cost: [Double]
    private var pattern: [PasswordPattern?]

    init(count: Int) {
        self.count = count
        cost = Array(repeating: .infinity, count: count * (count + 1))
        pattern = Array(repeating: nil, count: count * (count + 1))
    }

    /// Offers `guesses` (at least 1) for characters `start..<end` as `kind`. A match
    /// that is not bruteforce costs at least 10 guesses for one character and 50 for more,
    /// so that a decomposition does not shatter into tiny matches.
    mutating func offer(_ start: Int, _ end: Int, log10Guesses: Double, as kind: PasswordPattern) {
        precondition(start < end && end <= count, "a match lies inside the password")
        let floor = kind == .bruteforce ? 0 : log10(end - start == 1 ? 10.0 : 50.0)
        let value = max(log10Guesses, floor)
        let i = start * (count + 1) + end
        if value < cost[i] {
            cost[i] = value
            pattern[i] = kind
        }
    }

    /// The cheapest offer for `start..<end` (infinity when none).
    func cost(_ start: Int, _ end: Int) -> Double { cost[start * (count + 1) + end] }

    /// The pattern of that offer.
    func pattern(_ start: Int, _ end: Int) -> PasswordPattern? { pattern[start * (count + 1) + end] }
}

/// log10 of n choose k.
func log10Binomial(_ n: Int, _ k: Int) -> Double {
    guard k >= 0, k <= n else { return -.infinity }
    return (lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))) / log(10.0)
}

/// log10 of the sum over i in 1...k of (n choose i): the ways to pick which of n
/// positions carry a variation, when at most k do.
func log10VariantCount(_ n: Int, upTo k: Int) -> Double {
    guard k >= 1 else { return 0 }
    var total = 0.0
    for i in 1...min(k, n) { total += pow(10, log10Binomial(n, i)) }
    return log10(total)
}
