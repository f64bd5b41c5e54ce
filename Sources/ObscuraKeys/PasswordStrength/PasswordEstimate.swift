/// How many guesses a password would take an attacker who tries likely passwords first
/// (common passwords, words, keyboard patterns, dates) before random strings, as found by
/// ``PasswordEstimator`` (docs/SECURITY.md, "Password strength").
public struct PasswordEstimate: Sendable, Equatable {
    /// One stretch of the password in the cheapest decomposition.
    public struct Part: Sendable, Equatable {
        /// What the stretch was recognised as.
        public var pattern: PasswordPattern
        /// How many characters it covers.
        public var length: Int
        /// log10 of the guesses for this stretch alone.
        public var log10Guesses: Double
    }

    /// log10 of the guesses for the whole password: at 10, about ten billion guesses.
    public var log10Guesses: Double
    /// The stretches, in password order. They carry no characters of the password.
    public var parts: [Part]

    /// The pattern that covers the most characters, if a part of three or more was
    /// recognised: the weakness a message should name (a lone "!" read as the word "i"
    /// is no weakness worth naming).
    public var mainWeakness: PasswordPattern? {
        parts.filter { $0.pattern != .bruteforce && $0.length >= 3 }.max { $0.length < $1.length }?.pattern
    }

    /// Creates an estimate (the estimator makes them; tests and other front ends may too).
    public init(log10Guesses: Double, parts: [Part]) {
        self.log10Guesses = log10Guesses
        self.parts = parts
    }
}
