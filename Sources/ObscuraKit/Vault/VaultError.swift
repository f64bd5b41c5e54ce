import ObscuraCrypto
import ObscuraKeys

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
    /// The vault was locked; its keys are gone.
    case locked
    /// A slot or catalog failed a check.
    case corrupt(String)
    /// No folder has this path.
    case noSuchFolder(String)
    /// A folder with this path exists.
    case folderExists(String)
    /// The folder still holds items or folders.
    case folderNotEmpty(String)
    /// A restore named an item that is not in the trash.
    case notInTrash(String)
    /// A move named an item in the trash.
    case inTrash(String)
    /// Folders cannot be made inside a protected folder.
    case nestedProtectedFolder
    /// A folder or item name is empty or invalid.
    case invalidName(String)
    /// A folder cannot move into itself or into one of its own subfolders.
    case folderIntoItself(String)
    /// The folder password is wrong.
    case wrongFolderPassword
    /// The item is in a protected folder that is not unlocked.
    case folderLocked(String)
    /// No item has this id (or id prefix), or the prefix is ambiguous.
    case noSuchItem(String)
    /// A source file changed while it was being imported.
    case sourceChanged
    /// A page cursor that ``Vault/itemListing(scope:favoritesOnly:after:limit:)`` did not make.
    case invalidCursor
    /// A setting was given a value it does not take.
    case invalidSetting(String)
    /// The directory's slots are sealed under an outer key and none was given
    /// (docs/FORMAT.md §8).
    case outerKeyRequired
    /// The directory's slots are version 3 (docs/FORMAT.md §3), which are read only to be
    /// migrated into the container (§8.10): no vault of it is opened or made until then.
    case version3Directory
    /// The item has ended (issue 19, docs/FORMAT.md §3.3 "Ends"): its time passed or its
    /// last view was taken; it is being deleted for good.
    case ended(String)
    /// An end that cannot be set: no time and no views, a count out of range, a time
    /// already past.
    case invalidEnd(String)
    /// The vault has as many passkeys as it has fields (docs/FORMAT.md §9.8).
    case passkeyLimit
    /// The passkey name is empty, too long or holds control characters.
    case invalidPasskeyName
    /// Another passkey of this vault has this name.
    case passkeyNameTaken(String)
    /// No passkey of this vault has this name.
    case noSuchPasskey(String)
    /// The passkey being enrolled already opens a vault of this directory: one secret
    /// opens at most one slot (§3.5).
    case passkeyOpensAVault

    public var description: String {
        switch self {
        case .wrongPassword:
            return "wrong password"
        case let .inUse(path):
            return "vault directory \(path) is in use by another obscura process"
        case let .notInitialized(path):
            return "no vault directory at \(path); run `obscura init` first"
        case .noFreeSlot:
            return "no free decoy slot: every slot holds a vault, or the decoys were made with another device secret (see `obscura keys import decoy`); pass --allow-extended-slots to add an 11th slot, which makes the number of vaults visible"
        case .passwordInUse:
            return "this password already opens a vault in this directory; choose another"
        case .locked:
            return "the vault is locked"
        case let .corrupt(why):
            return "vault data is corrupt: \(why)"
        case let .noSuchFolder(path):
            return "no folder named \(path)"
        case let .folderExists(path):
            return "a folder named \(path) already exists"
        case let .folderNotEmpty(path):
            return "folder \(path) is not empty; move or remove its items and folders first (its items in the trash count until they are deleted for good)"
        case let .notInTrash(id):
            return "item \(id) is not in the trash"
        case let .inTrash(id):
            return "item \(id) is in the trash; restore it first"
        case .nestedProtectedFolder:
            return "folders cannot be created inside a password-protected folder"
        case let .invalidName(name):
            return "invalid name: \"\(name)\""
        case let .folderIntoItself(path):
            return "folder \(path) cannot move into itself or one of its own folders"
        case .wrongFolderPassword:
            return "wrong folder password"
        case let .folderLocked(name):
            return "folder \(name) is protected and locked; unlock it with its password"
        case let .noSuchItem(id):
            return "no item matches \(id)"
        case .sourceChanged:
            return "the file changed while it was being imported"
        case .invalidCursor:
            return "invalid page cursor"
        case let .invalidSetting(name):
            return "invalid value for \(name)"
        case .outerKeyRequired:
            return "this vault directory is sealed with an outer key, and none was given"
        case .version3Directory:
            return "this vault directory's slots are version 3, which are only read to be migrated; run `obscura migrate`"
        case let .ended(id):
            return "item \(id) has ended and is deleted for good"
        case let .invalidEnd(why):
            return "invalid end: \(why)"
        case .passkeyLimit:
            return "at most \(PasskeyFormat.fieldCount) passkeys per vault; remove one first"
        case .invalidPasskeyName:
            return "a passkey name is 1 to \(PasskeyRecord.maximumNameSize) bytes of text, without control characters, line breaks or invisible formatting characters"
        case let .passkeyNameTaken(name):
            return "this vault already has a passkey named \(name)"
        case let .noSuchPasskey(name):
            return "this vault has no passkey named \"\(name)\""
        case .passkeyOpensAVault:
            return "this passkey already opens a vault"
        }
    }
}
