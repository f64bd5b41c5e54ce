import Foundation

/// Finds characters in even steps through the digits or one case of the alphabet:
/// "abcdef", "4321", "acegi", "ZYX".
struct SequenceMatcher {
    /// The largest step counted as a sequence.
    static let maximumStep = 3
    /// Shortest sequence worth offering.
    static let minimumLength = 3

    /// Offers every stretch of a sequence of at least three characters.
    func match(_ text: PasswordText, into matches: inout PasswordMatches) {
        var start = 0
        while start + 1 < text.count {
            let step = Int64(text.scalars[start + 1]) - Int64(text.scalars[start])
            guard step != 0, abs(step) <= Int64(Self.maximumStep), Self.sameClass(text.scalars[start], text.scalars[start + 1]) else {
                start += 1
                continue
            }
            var end = start + 2
            while end < text.count, Int64(text.scalars[end]) - Int64(text.scalars[end - 1]) == step,
                  Self.sameClass(text.scalars[start], text.scalars[end]) {
                end += 1
            }
            if end - start >= Self.minimumLength {
                for s in start...(end - Self.minimumLength) {
                    for e in (s + Self.minimumLength)...end {
                        matches.offer(s, e, log10Guesses: cost(text.scalars[s..<e], step: Int(step)), as: .sequence)
                    }
                }
            }
            start = end - 1
        }
    }

    /// Both digits, both lower-case or both upper-case letters.
    static func sameClass(_ a: UInt32, _ b: UInt32) -> Bool {
        (PasswordText.isDigit(a) && PasswordText.isDigit(b)) || (PasswordText.isLower(a) && PasswordText.isLower(b))
            || (PasswordText.isUpper(a) && PasswordText.isUpper(b))
    }

    /// log10 of the guesses: the first character (few for an obvious start such as "a",
    /// "1" or "z"), the length, the direction and the step.
    func cost(_ run: ArraySlice<UInt32>, step: Int) -> Double {
        let first = run.first!
        let obvious: Set<UInt32> = Set("aAzZ019".unicodeScalars.map(\.value))
        let starts = obvious.contains(first) ? 4.0 : PasswordText.isDigit(first) ? 10 : 26
        var guesses = log10(starts) + log10(Double(run.count))
        if step < 0 { guesses += log10(2) }
        if abs(step) > 1 { guesses += log10(Double(Self.maximumStep)) }
        return guesses
    }
}
