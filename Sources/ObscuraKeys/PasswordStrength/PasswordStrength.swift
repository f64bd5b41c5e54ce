/// A password's class, from the time one GPU needs to guess it at the key derivation it
/// protects (docs/SECURITY.md, "Password strength"). The thresholds are on the expected
/// time to reach the password, which is about half the time to try every guess before it.
public enum PasswordStrength: Int, Sendable, Comparable, CaseIterable {
    /// Under a day on one GPU.
    case veryWeak
    /// Under ten years on one GPU: a hundred rented GPUs take it in about five weeks.
    case weak
    /// Under ten thousand years on one GPU.
    case fair
    /// Under ten million years on one GPU.
    case strong
    /// Ten million years or more on one GPU.
    case veryStrong

    /// Seconds in a (Julian) year.
    public static let year = 365.25 * 86_400

    /// The upper bound, in seconds on one GPU, of each class below ``veryStrong``.
    public static let thresholds: [(PasswordStrength, Double)] = [
        (.veryWeak, 86_400), (.weak, 10 * year), (.fair, 10_000 * year), (.strong, 10_000_000 * year),
    ]

    /// The class of a password that one GPU reaches in `seconds`.
    public init(seconds: Double) {
        self = Self.thresholds.first { seconds < $0.1 }?.0 ?? .veryStrong
    }

    /// Whether a person must confirm before the password is used: ``veryWeak`` and ``weak``.
    public var needsConfirmation: Bool { self <= .weak }

    /// The class in words: "very weak", "weak", "fair", "strong", "very strong".
    public var label: String {
        switch self {
        case .veryWeak: "very weak"
        case .weak: "weak"
        case .fair: "fair"
        case .strong: "strong"
        case .veryStrong: "very strong"
        }
    }

    /// The API's name for the class: "veryWeak", "weak", "fair", "strong", "veryStrong".
    public var name: String { String(describing: self) }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
