import ObscuraCrypto

/// Errors finding, reading or storing a directory's outer key, decoy secret or device
/// secret. Messages
/// name files, kinds and reasons, never key bytes or key text.
public enum KeyError: ObscuraError, Equatable {
    /// Why a key could not be had at all.
    public enum Unavailability: Sendable, Equatable {
        /// No session bus, no Secret Service or Keychain on it, or no default collection;
        /// the text is the system's own reason.
        case noKeyring(String)
        /// The keyring (or every item of the key's kind) is locked; unlocking it needs
        /// the user, and Obscura never prompts on the keyring's behalf.
        case locked
        /// The keyring did not answer in time.
        case timedOut
        /// The keyring holds no key of this kind, and no key file was given.
        case noKey
    }

    /// No outer key can be had: no keyring, a locked one, or no item and no key file.
    case outerKeyUnavailable(Unavailability)
    /// No decoy secret can be had: no keyring, a locked one, or no item and no key file.
    case decoySecretUnavailable(Unavailability)
    /// Outer keys were found, but none opens this directory. Thrown by the caller that
    /// tries the candidates.
    case outerKeyMismatch
    /// A typed or stored key text has the wrong kind word, a bad symbol, the wrong
    /// length or the wrong check group; one error for all, so it tells nothing more.
    case invalidKeyText
    /// Typed words are not 24 words of the BIP39 English list with the right checksum;
    /// one error for all.
    case invalidWords
    /// A key file may be read by other users (or is not a plain file): refused.
    case keyFilePermissions(path: String)
    /// A key file could not be opened or read.
    case keyFileUnreadable(path: String, reason: String)
    /// A key file belongs to another user, who could swap the key: refused.
    case keyFileOwner(path: String)
    /// A key file holds no valid text of the key wanted; `holds` names the other kind
    /// when the file holds that kind's text.
    case keyFileInvalid(path: String, wanted: KeyKind, holds: KeyKind?)
    /// The keyring has no item with this id (deleted meanwhile, or another kind's).
    case keyringItemNotFound
    /// The keyring refused a request for another reason; the text is its own.
    case keyringFailed(String)
    /// No device secret file at the path (docs/FORMAT.md §4.1).
    case deviceSecretMissing(String)
    /// The device secret file is not 32 bytes.
    case deviceSecretInvalid(String)

    /// The unavailability error for `kind`.
    public static func unavailable(_ kind: KeyKind, _ why: Unavailability) -> KeyError {
        switch kind {
        case .outer: return .outerKeyUnavailable(why)
        case .decoy: return .decoySecretUnavailable(why)
        }
    }

    /// The message to show: what failed and what to do, never key bytes.
    public var description: String {
        switch self {
        case let .outerKeyUnavailable(why):
            return "outer key unavailable: \(why.description(for: .outer)); pass --outer-key-file on a machine without a keyring"
        case let .decoySecretUnavailable(why):
            return "decoy secret unavailable: \(why.description(for: .decoy)); pass --decoy-secret-file on a machine without a keyring"
        case .outerKeyMismatch:
            return "this directory needs another outer key: none of the outer keys found opens it (import the right one with `obscura keys import outer`)"
        case .invalidKeyText:
            return "not a valid key text"
        case .invalidWords:
            return "not 24 valid recovery words (BIP39 English): check each word and its place"
        case let .keyFilePermissions(path):
            return "key file \(path) is readable by other users or is not a plain file; make it a file only you can read (chmod 600)"
        case let .keyFileUnreadable(path, reason):
            return "cannot read key file \(path): \(reason)"
        case let .keyFileOwner(path):
            return "key file \(path) belongs to another user; use a key file you own"
        case let .keyFileInvalid(path, wanted, holds?):
            return "key file \(path) holds \(holds == .outer ? "an" : "a") \(holds.name), not the \(wanted.name) asked for; give each key its own file"
        case let .keyFileInvalid(path, wanted, nil):
            return "key file \(path) does not hold a valid \(wanted.name) text (a typo, or a damaged copy)"
        case .keyringItemNotFound:
            return "the keyring has no such item"
        case let .deviceSecretMissing(path):
            return "device secret not found at \(path); import it with `obscura keys import decoy` or run `obscura init`"
        case let .deviceSecretInvalid(path):
            return "device secret at \(path) is not 32 bytes"
        case let .keyringFailed(why):
            return "the keyring failed: \(why)"
        }
    }
}

extension KeyError.Unavailability {
    /// The reason in words, naming the kind of key that was wanted.
    func description(for kind: KeyKind) -> String {
        switch self {
        case let .noKeyring(why): return "no keyring is reachable (\(why))"
        case .locked: return "the keyring is locked; unlock it (log in to the desktop session) and try again"
        case .timedOut: return "the keyring did not answer in time"
        case .noKey: return "the keyring holds no \(kind.name)"
        }
    }
}
