/// Errors from the crypto primitives. Messages never include key or plaintext bytes.
public enum CryptoError: Error, Equatable, CustomStringConvertible {
    /// The authentication tag did not verify: wrong key, or the bytes were altered.
    case authenticationFailed
    /// A sealed box is shorter than nonce plus tag.
    case truncated
    /// A key or nonce has the wrong length for the algorithm.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// The key-derivation function refused its parameters.
    case keyDerivationFailed

    public var description: String {
        switch self {
        case .authenticationFailed: return "authentication failed (wrong key or altered data)"
        case .truncated: return "sealed data is truncated"
        case let .invalidLength(what, expected, actual):
            return "invalid \(what) length: expected \(expected) bytes, got \(actual)"
        case .keyDerivationFailed: return "key derivation failed"
        }
    }
}

/// Every error Obscura's modules throw: each has a message fit to show a person, and
/// none carries a secret.
public protocol ObscuraError: Error, CustomStringConvertible {}

extension CryptoError: ObscuraError {}
