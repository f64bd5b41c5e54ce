import ObscuraCrypto

/// Errors from vault operations. Messages name files and reasons, never secrets, and a
/// wrong password never says anything about which slot was tried.
public enum VaultError: ObscuraError, Equatable {
    /// The password opened no slot.
    case wrongPassword
    /// Another process holds the directory's lock.
    case inUse(String)
    /// The directory has no slots yet.
    case notInitialized(String)
    /// No decoy slot could be found to turn into a vault.
    case noFreeSlot
    /// The password already opens a vault in this directory.
    case passwordInUse
    /// The device secret file does not exist.
    case deviceSecretMissing(String)
    /// The device secret file is not 32 bytes.
    case deviceSecretInvalid(String)
    /// The vault was locked; its keys are gone.
    case locked
    /// A slot or catalog failed a check.
    case corrupt(String)

    public var description: String {
        switch self {
        case .wrongPassword:
            return "wrong password"
        case let .inUse(path):
            return "vault directory \(path) is in use by another obscura process"
        case let .notInitialized(path):
            return "no vault directory at \(path); run `obscura init` first"
        case .noFreeSlot:
            return "no free decoy slot: every slot holds a vault, or the decoys were made with another device secret (see `obscura device-secret import`); pass --allow-extended-slots to add an 11th slot, which makes the number of vaults visible"
        case .passwordInUse:
            return "this password already opens a vault in this directory; choose another"
        case let .deviceSecretMissing(path):
            return "device secret not found at \(path); import it with `obscura device-secret import` or run `obscura init`"
        case let .deviceSecretInvalid(path):
            return "device secret at \(path) is not 32 bytes"
        case .locked:
            return "the vault is locked"
        case let .corrupt(why):
            return "vault data is corrupt: \(why)"
        }
    }
}
