import Foundation
import ObscuraCrypto

/// A password's estimate put against a key derivation: the time one GPU needs, the
/// class, and the sentence the CLI and the gallery show (docs/SECURITY.md, "Password
/// strength").
public struct PasswordAssessment: Sendable, Equatable {
    /// The guess count and its decomposition.
    public var estimate: PasswordEstimate
    /// The derivation the password protects.
    public var cost: PasswordKDFCost
    /// Guesses per second one GPU makes against ``cost`` (``GuessingRate``).
    public var guessesPerSecond: Double

    /// Estimates `password` against `cost`.
    public init(_ password: SecureBytes, cost: PasswordKDFCost) {
        self.init(estimate: PasswordEstimator.estimate(password), cost: cost)
    }

    /// Puts an existing estimate against `cost`.
    public init(estimate: PasswordEstimate, cost: PasswordKDFCost) {
        self.estimate = estimate
        self.cost = cost
        guessesPerSecond = GuessingRate.oneGPU(against: cost)
    }

    /// Expected seconds for one GPU to reach the password: half its guesses, on average.
    public var seconds: Double { pow(10, estimate.log10Guesses) / 2 / guessesPerSecond }

    /// The class of ``seconds``.
    public var strength: PasswordStrength { PasswordStrength(seconds: seconds) }

    /// One line, in time and words rather than powers of ten: "Password strength: weak.
    /// Found: a common password. One GPU would need about 2 days to find it, against
    /// PBKDF2-HMAC-SHA256, 600,000 iterations."
    public var summary: String {
        var line = "Password strength: \(strength.label)."
        if let weakness = weaknessWorthSaying { line += " Found: \(weakness.phrase)." }
        line += " One GPU would need \(Self.duration(seconds)) to find it, against \(cost.summary)."
        return line
    }

    /// What weakens the password most, when that matters: below ``PasswordStrength/strong``.
    /// A strong password may still contain a common one ("correct horse battery staple"
    /// holds "correct"); calling it "a common password" then misleads.
    public var weaknessWorthSaying: PasswordPattern? { strength < .strong ? estimate.mainWeakness : nil }

    /// Seconds since the universe began, about 13.8 billion years: past it, a count of
    /// years means nothing to anyone.
    static let ageOfTheUniverse = 13.8e9 * PasswordStrength.year

    /// `seconds` in words: "less than a second", "about 3 hours", "about 40,000 years",
    /// "millions of years", "billions of years", "longer than the universe has existed".
    public static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return "less than a second" }
        if seconds >= ageOfTheUniverse { return "longer than the universe has existed" }
        if seconds >= 1e9 * PasswordStrength.year { return "billions of years" }
        if seconds >= 1e6 * PasswordStrength.year { return "millions of years" }
        let units: [(String, Double)] = [
            ("second", 1), ("minute", 60), ("hour", 3_600), ("day", 86_400), ("month", PasswordStrength.year / 12),
            ("year", PasswordStrength.year),
        ]
        let (unit, size) = units.last { seconds >= $0.1 }!
        let count = seconds / size
        let rounded = count < 10 ? Int(count.rounded()) : count < 1000 ? Int((count / 10).rounded()) * 10 : Int((count / 1000).rounded()) * 1000
        return "about \(grouped(rounded)) \(unit)\(rounded == 1 ? "" : "s")"
    }

    /// `value` with commas between thousands: "600,000".
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
