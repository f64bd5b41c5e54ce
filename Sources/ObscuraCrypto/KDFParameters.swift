/// A password KDF with its cost, as Obscura's files store it: a suite id and a 32-bit
/// cost word beside a 32-byte salt (docs/FORMAT.md §2, "Password KDF suites").
///
/// Every file that derives a key from a password (slot header §3.1, protected folder
/// §6.4, export header §7.1) stores these two numbers, so one reader opens files made
/// with either KDF and with any cost inside the reader's bounds.
public enum KDFParameters: Hashable, Sendable, CustomStringConvertible {
    /// PBKDF2-HMAC-SHA256 with this many iterations (suite 1).
    case pbkdf2(iterations: Int)
    /// Argon2id, version 0x13 (RFC 9106), with this cost (suite 2).
    case argon2id(Argon2idCost)

    /// §2: the suite id of PBKDF2-HMAC-SHA256 in slot headers and protected folders.
    public static let pbkdf2Suite: UInt16 = 1
    /// §2: the suite id of Argon2id.
    public static let argon2idSuite: UInt16 = 2

    /// Vault passwords with PBKDF2: 600,000 iterations.
    public static let vault = KDFParameters.pbkdf2(iterations: PasswordKDF.vaultIterations)
    /// Folder passwords with PBKDF2: 100,000 iterations.
    public static let folder = KDFParameters.pbkdf2(iterations: PasswordKDF.folderIterations)
    /// Export passwords with PBKDF2: 600,000 iterations.
    public static let export = KDFParameters.pbkdf2(iterations: PasswordKDF.exportIterations)
    /// Argon2id at RFC 9106's second recommended setting, for vaults, folders and exports
    /// alike: 64 MiB, 3 passes, 4 lanes.
    public static let argon2id = KDFParameters.argon2id(.recommended)

    /// The suite id stored beside the cost word.
    public var suite: UInt16 {
        switch self {
        case .pbkdf2: Self.pbkdf2Suite
        case .argon2id: Self.argon2idSuite
        }
    }

    /// The 32-bit cost word: PBKDF2's iteration count, or Argon2id's packed cost (§2).
    public var word: UInt32 {
        switch self {
        case .pbkdf2(let iterations): UInt32(clamping: iterations)
        case .argon2id(let cost): cost.word
        }
    }

    /// Reads a suite and cost word from a file, or nil when the suite is unknown or the
    /// cost is outside the bounds every reader enforces (§2): a damaged cost must neither
    /// stall an unlock nor exhaust memory.
    public init?(suite: UInt16, word: UInt32) {
        switch suite {
        case Self.pbkdf2Suite:
            guard word >= 1, word <= UInt32(PasswordKDF.maximumIterations) else { return nil }
            self = .pbkdf2(iterations: Int(word))
        case Self.argon2idSuite:
            guard let cost = Argon2idCost(word: word) else { return nil }
            self = .argon2id(cost)
        default:
            return nil
        }
    }

    /// Derives the 32-byte key of `password` and `salt`.
    ///
    /// - Throws: ``CryptoError/keyDerivationFailed`` for a cost out of bounds or a
    ///   failure of the underlying library.
    public func deriveKey(password: SecureBytes, salt: some Collection<UInt8>) throws -> SecureBytes {
        switch self {
        case .pbkdf2(let iterations):
            try PasswordKDF.deriveKey(password: password, salt: salt, iterations: iterations)
        case .argon2id(let cost):
            try Argon2id.deriveKey(password: password, salt: salt, cost: cost)
        }
    }

    /// The KDF named in words, e.g. "PBKDF2-HMAC-SHA256, 600,000 iterations" or
    /// "Argon2id, 64 MiB, 3 passes, 4 lanes".
    public var description: String {
        switch self {
        case .pbkdf2(let iterations):
            "PBKDF2-HMAC-SHA256, \(Self.grouped(iterations)) iterations"
        case .argon2id(let cost):
            "Argon2id, \(cost.memoryDescription), \(cost.passes) pass\(cost.passes == 1 ? "" : "es"), \(cost.lanes) lane\(cost.lanes == 1 ? "" : "s")"
        }
    }

    /// `600000` as "600,000".
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        return String(digits.enumerated().flatMap { i, d in
            (i > 0 && (digits.count - i) % 3 == 0) ? [",", d] : [d]
        })
    }
}
