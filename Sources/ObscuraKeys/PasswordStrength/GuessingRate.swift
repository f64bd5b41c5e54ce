import ObscuraCrypto

/// The key derivation a password is stretched with, as far as the attacker's cost goes:
/// a guess costs one full derivation.
public enum PasswordKDFCost: Sendable, Equatable {
    /// PBKDF2-HMAC-SHA256 with this many iterations (docs/FORMAT.md §2).
    case pbkdf2SHA256(iterations: Int)
    /// Argon2id at this cost (docs/FORMAT.md §2).
    case argon2id(Argon2idCost)

    /// The cost of deriving with `kdf`.
    public init(_ kdf: KDFParameters) {
        switch kdf {
        case .pbkdf2(let iterations): self = .pbkdf2SHA256(iterations: iterations)
        case .argon2id(let cost): self = .argon2id(cost)
        }
    }

    /// A vault password's derivation (``PasswordKDF/vaultIterations``).
    public static let vault = PasswordKDFCost.pbkdf2SHA256(iterations: PasswordKDF.vaultIterations)
    /// A folder password's derivation (``PasswordKDF/folderIterations``).
    public static let folder = PasswordKDFCost.pbkdf2SHA256(iterations: PasswordKDF.folderIterations)
    /// An export password's derivation (``PasswordKDF/exportIterations``).
    public static let export = PasswordKDFCost.pbkdf2SHA256(iterations: PasswordKDF.exportIterations)

    /// A short description, such as "PBKDF2-HMAC-SHA256, 600,000 iterations".
    public var summary: String {
        switch self {
        case .pbkdf2SHA256(let iterations):
            "PBKDF2-HMAC-SHA256, \(PasswordAssessment.grouped(iterations)) iterations"
        case .argon2id(let cost):
            KDFParameters.argon2id(cost).description
        }
    }
}

/// How fast an offline attacker with one current high-end GPU tries passwords against a
/// given key derivation (docs/SECURITY.md, "Password strength"). This is an assumption,
/// stated so that it can be checked and revised, not a measurement of this machine.
public enum GuessingRate {
    /// PBKDF2-HMAC-SHA256 iterations per second on one GPU: hashcat's benchmark of mode
    /// 10900 (PBKDF2-HMAC-SHA256 at 999 iterations) on an NVIDIA RTX 4090 runs about
    /// 8.87 million candidates a second (hashcat 6.2.6), that is about 8.86 × 10^9
    /// iterations a second. Each iteration is two SHA-256 compressions whatever the count,
    /// so the rate scales as one over the iterations.
    public static let pbkdf2SHA256IterationsPerSecond = 8.86e9

    /// Memory bandwidth of the same GPU, in bytes a second (an RTX 4090's 1,008 GB/s).
    /// Argon2id at 64 MiB is bound by memory traffic, not arithmetic: each pass reads and
    /// writes every block at least once, so a guess moves at least 2 × memory × passes
    /// bytes. The rate below is that bound, generous to the attacker.
    public static let gpuMemoryBytesPerSecond = 1.008e12

    /// Guesses per second on one GPU against `cost`.
    public static func oneGPU(against cost: PasswordKDFCost) -> Double {
        switch cost {
        case .pbkdf2SHA256(let iterations): pbkdf2SHA256IterationsPerSecond / Double(max(iterations, 1))
        case .argon2id(let cost): gpuMemoryBytesPerSecond / (2 * Double(cost.memoryKiB) * 1024 * Double(cost.passes))
        }
    }
}
