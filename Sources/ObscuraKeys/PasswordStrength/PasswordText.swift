import ObscuraCrypto

/// A password as Unicode scalar values, in arrays the estimator zeroes when it is done:
/// the password never becomes a `String`. Bytes that are not valid UTF-8 each count as
/// one character outside ASCII.
struct PasswordText {
    /// The characters as typed.
    var scalars: [UInt32]
    /// The same with ASCII letters in lower case.
    var lower: [UInt32]

    var count: Int { scalars.count }

    /// Decodes at most `limit` characters of `password`.
    init(_ password: SecureBytes, limit: Int) {
        var scalars = [UInt32]()
        scalars.reserveCapacity(min(password.count, limit))
        password.withUnsafeBytes { raw in
            var iterator = raw.makeIterator()
            var decoder = UTF8()
            decoding: while scalars.count < limit {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): scalars.append(scalar.value)
                case .error: scalars.append(0x11_0000)
                case .emptyInput: break decoding
                }
            }
        }
        self.init(scalars: scalars)
    }

    init(scalars: [UInt32]) {
        self.scalars = scalars
        lower = scalars.map { PasswordText.isUpper($0) ? $0 + 32 : $0 }
    }

    /// The characters `range`, as a text of their own (a repeated unit).
    func slice(_ range: Range<Int>) -> PasswordText {
        PasswordText(scalars: Array(scalars[range]))
    }

    /// Overwrites both arrays with zeros.
    mutating func wipe() {
        for i in scalars.indices { scalars[i] = 0; lower[i] = 0 }
    }

    static func isUpper(_ c: UInt32) -> Bool { c >= 0x41 && c <= 0x5A }
    static func isLower(_ c: UInt32) -> Bool { c >= 0x61 && c <= 0x7A }
    static func isDigit(_ c: UInt32) -> Bool { c >= 0x30 && c <= 0x39 }
    /// Printable ASCII that is neither a letter nor a digit (space included).
    static func isSymbol(_ c: UInt32) -> Bool { c >= 0x20 && c < 0x7F && !isUpper(c) && !isLower(c) && !isDigit(c) }

    /// How many characters the class of `c` holds, for a bruteforce search.
    static func classSize(_ c: UInt32) -> Int {
        if isLower(c) || isUpper(c) { return 26 }
        if isDigit(c) { return 10 }
        if isSymbol(c) { return 33 }
        return 100
    }
}
