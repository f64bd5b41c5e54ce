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

    /// One line: "Password strength: weak. About 10^9.3 guesses (a common password); one
    /// GPU would find it in about 2 days against PBKDF2-HMAC-SHA256, 600,000 iterations."
    public var summary: String {
        var line = "Password strength: \(strength.label). About 10^\(String(format: "%.1f", estimate.log10Guesses)) guesses"
        if let weakness = estimate.mainWeakness { line += " (\(weakness.phrase))" }
        line += "; one GPU would find it in \(Self.duration(seconds)) against \(cost.summary)."
        return line
    }

    /// `seconds` in words: "less than a second", "about 3 hours", "about 40 years",
    /// "about 10^12 years".
    public static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return "less than a second" }
        let units: [(String, Double)] = [
            ("second", 1), ("minute", 60), ("hour", 3_600), ("day", 86_400), ("month", PasswordStrength.year / 12),
            ("year", PasswordStrength.year),
        ]
        let (unit, size) = units.last { seconds >= $0.1 }!
        let count = seconds / size
        if unit == "year", count >= 1_000_000 { return "about 10^\(Int(log10(count))) years" }
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
