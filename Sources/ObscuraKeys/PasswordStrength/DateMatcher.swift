import Foundation

/// Finds years (1900 to 2099) and dates in the usual orders, with or without separators:
/// "1987", "19871203", "03121987", "3/12/87", "1987-12-03".
struct DateMatcher {
    /// The year a guesser centres on: a person's dates lie near it.
    let referenceYear: Int
    /// Years closer than this to the reference still cost this many guesses.
    static let minimumYearSpan = 20

    /// Characters that may separate a date's parts.
    static let separators: Set<UInt32> = Set("/-._ \\".unicodeScalars.map(\.value))

    /// Offers every year and date in `text`.
    func match(_ text: PasswordText, into matches: inout PasswordMatches) {
        let s = text.scalars
        for start in s.indices where PasswordText.isDigit(s[start]) && start + 4 <= s.count {
            for end in (start + 4)...min(s.count, start + 10) {
                guard PasswordText.isDigit(s[end - 1]) else { continue }
                let token = s[start..<end]
                if token.allSatisfy(PasswordText.isDigit) {
                    if token.count == 4, let year = Self.number(token), (1900...2099).contains(year) {
                        matches.offer(start, end, log10Guesses: log10(Double(span(year))), as: .year)
                    }
                    if token.count <= 8, let year = bestYear(undelimited: token) {
                        matches.offer(start, end, log10Guesses: log10(365 * Double(span(year))), as: .date)
                    }
                } else if let year = bestYear(delimited: token) {
                    matches.offer(start, end, log10Guesses: log10(365 * 4 * Double(span(year))), as: .date)
                }
            }
        }
    }

    /// Years an attacker tries before `year`.
    func span(_ year: Int) -> Int { max(abs(year - referenceYear), Self.minimumYearSpan) }

    /// The year nearest the reference among the readings of digits as day, month and
    /// year in any of the three usual orders.
    private func bestYear(undelimited digits: ArraySlice<UInt32>) -> Int? {
        var best: Int?
        let n = digits.count
        for yearLength in [2, 4] where yearLength < n {
            for firstLength in 1...2 {
                let secondLength = n - yearLength - firstLength
                guard (1...2).contains(secondLength) else { continue }
                let base = digits.startIndex
                // Year first, or year last.
                for yearFirst in [true, false] {
                    let yearRange = yearFirst ? base..<base + yearLength : base + n - yearLength..<base + n
                    let rest = yearFirst ? base + yearLength : base
                    let parts = [digits[rest..<rest + firstLength], digits[rest + firstLength..<rest + firstLength + secondLength]]
                    consider(year: digits[yearRange], parts: parts, into: &best)
                }
            }
        }
        return best
    }

    /// The same for digits split by one kind of separator into three groups.
    private func bestYear(delimited token: ArraySlice<UInt32>) -> Int? {
        guard let separator = token.first(where: { !PasswordText.isDigit($0) }), Self.separators.contains(separator) else { return nil }
        let groups = token.split(separator: separator, omittingEmptySubsequences: false)
        guard groups.count == 3, groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy(PasswordText.isDigit) }) else { return nil }
        var best: Int?
        if [2, 4].contains(groups[0].count) { consider(year: groups[0], parts: [groups[1], groups[2]], into: &best) }
        if [2, 4].contains(groups[2].count) { consider(year: groups[2], parts: [groups[0], groups[1]], into: &best) }
        return best
    }

    /// Keeps `year` (two digits read as the nearer century) when the two parts make a
    /// day and a month in either order, and it is nearer the reference than `best`.
    private func consider(year digits: ArraySlice<UInt32>, parts: [ArraySlice<UInt32>], into best: inout Int?) {
        guard parts.allSatisfy({ (1...2).contains($0.count) }), var year = Self.number(digits),
              let a = Self.number(parts[0]), let b = Self.number(parts[1]),
              ((1...12).contains(a) && (1...31).contains(b)) || ((1...12).contains(b) && (1...31).contains(a))
        else { return }
        if digits.count == 2 { year += year > (referenceYear % 100) + 10 ? 1900 : 2000 }
        guard (1900...2099).contains(year) else { return }
        if best.map({ abs(year - referenceYear) < abs($0 - referenceYear) }) ?? true { best = year }
    }

    private static func number(_ digits: ArraySlice<UInt32>) -> Int? {
        guard digits.count <= 4, digits.allSatisfy(PasswordText.isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
