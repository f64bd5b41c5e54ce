/// What a part of a password was recognised as, in the estimator's decomposition
/// (docs/SECURITY.md, "Password strength").
public enum PasswordPattern: String, Sendable, CaseIterable {
    /// One of the most common leaked passwords (possibly capitalised or with l33t
    /// substitutions).
    case commonPassword
    /// An English word.
    case englishWord
    /// A first name or surname.
    case name
    /// A run of neighbouring keys on a QWERTY keyboard ("qwerty", "zxcvb", "1qaz").
    case keyboard
    /// Characters in steps of the alphabet or the digits ("abcd", "9876", "aceg").
    case sequence
    /// A character or a group of characters repeated ("aaaa", "abcabc").
    case repeated
    /// A calendar date ("19871203", "3/12/87").
    case date
    /// A year ("1987", "2024").
    case year
    /// Characters no pattern explains, counted as a search over their character classes.
    case bruteforce

    /// A short phrase for a message, such as "a common password".
    public var phrase: String {
        switch self {
        case .commonPassword: "a common password"
        case .englishWord: "an English word"
        case .name: "a name"
        case .keyboard: "a keyboard pattern"
        case .sequence: "a sequence"
        case .repeated: "a repetition"
        case .date: "a date"
        case .year: "a year"
        case .bruteforce: "random characters"
        }
    }
}
