import Foundation

/// Finds a character or a group repeated back to back: "aaaa", "abcabc", "lollollol".
/// A repetition costs the guesses of its unit, estimated on its own, times the count.
struct RepeatMatcher {
    /// The longest unit looked for.
    static let maximumUnit = 16

    /// Offers every run of two or more copies of a unit; `unitCost` is log10 of the
    /// guesses for the characters of a unit on their own.
    func match(_ text: PasswordText, into matches: inout PasswordMatches, unitCost: (Range<Int>) -> Double) {
        for start in 0..<text.count {
            for unit in 1...max(1, min(Self.maximumUnit, (text.count - start) / 2)) where start + 2 * unit <= text.count {
                // A unit that is itself a repetition ("abab" in "abababab") is covered by its root.
                guard !Self.isPeriodic(text.lower[start..<start + unit]) else { continue }
                var copies = 1
                while start + (copies + 1) * unit <= text.count,
                      text.lower[start..<start + unit].elementsEqual(text.lower[start + copies * unit..<start + (copies + 1) * unit]) {
                    copies += 1
                }
                guard copies >= 2 else { continue }
                let base = unitCost(start..<start + unit)
                for count in 2...copies {
                    matches.offer(start, start + count * unit, log10Guesses: base + log10(Double(count)), as: .repeated)
                }
            }
        }
    }

    /// Whether `unit` is a shorter group repeated.
    static func isPeriodic(_ unit: ArraySlice<UInt32>) -> Bool {
        let n = unit.count
        guard n > 1 else { return false }
        for period in 1...(n / 2) where n % period == 0 {
            if unit.dropFirst(period).elementsEqual(unit.dropLast(period)) { return true }
        }
        return false
    }
}
