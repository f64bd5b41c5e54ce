import Foundation
import Logging
import ObscuraCrypto
import ObscuraStore
import ObscuraKeys

/// An opened vault directory: `<vault>/data/` (slot files) and `<vault>/media/` (media
/// pool), held under an exclusive advisory lock for the life of this object
/// (docs/FORMAT.md §4).
public final class VaultDirectory {
    /// The directory's path.
    public let path: String
    /// Where the decoy secret D lives (the device secret of version 3).
    public let deviceSecrets: any DecoySecretSource
    let store: SlotStore
    let random: RandomSource
    /// The directory's outer key, when its slots are (or are to be) a version 4
    /// container (docs/FORMAT.md §8).
    var outerKey: OuterKey?
    /// The candidate that opened the directory, when ``open(path:deviceSecrets:outerKeys:create:random:)``
    /// found its outer key; nil otherwise.
    public internal(set) var openedWith: KeyCandidate?
    /// Why a key tried before ``openedWith`` did not open the directory although its
    /// superblocks opened (a damaged or rolled-back commit), if one did: after a rotation
    /// cut short, the older key may open the state from before it.
    public internal(set) var passedOver: Error?
    let logger = Logger(label: "obscura.vault")
    /// Held from a sweep for a new password to the commit that gives it a slot (a vault's
    /// creation, a password change): two such changes at once could each find the password
    /// unused, and leave two vaults with one password. Taken before a catalog's queue and
    /// the write lock, never inside them; the directory's `flock` keeps other processes out.
    let credentialLock = OrderedLock(.credentials, recursive: true)
    /// The sessions opened here, by slot, for a destroy to stop them all.
    let sessions = SessionRegistry()
    private let lock: DirectoryLock
    /// How the container reaches the slot files: the real directory, or (in the crash
    /// tests) a write recorder.
    let slotFiles: (String) -> any SlotFiles

    /// Opens (and with `create`, makes) the directory at `path` and takes its lock.
    ///
    /// With `outerKey`, a version 4 directory is opened through its container, running
    /// its recovery first, and ``initialize(iterations:)`` makes one; without it, only a
    /// version 3 directory opens.
    ///
    /// - Throws: ``VaultError/inUse(_:)`` when another process holds it,
    ///   ``VaultError/notInitialized(_:)`` when it does not exist and `create` is false,
    ///   ``VaultError/outerKeyRequired`` for a container opened without its key, and
    ///   ``ContainerError`` when the container cannot be opened.
    public convenience init(
        path: String, deviceSecrets: any DecoySecretSource = DeviceSecretStore.defaultStore(), outerKey: SecureBytes? = nil,
        create: Bool = false, random: RandomSource = SystemRandom()
    ) throws {
        try self.init(
            path: path, deviceSecrets: deviceSecrets, outerKey: outerKey, create: create, random: random,
            slotFiles: DiskSlotFiles.init(path:))
    }

    /// Opens the directory like the public initializer, with the container's slot files
    /// reached through `slotFiles` (given `data/`'s path).
    init(
        path: String, deviceSecrets: any DecoySecretSource, outerKey: SecureBytes?, create: Bool, random: RandomSource,
        slotFiles: @escaping (String) -> any SlotFiles
    ) throws {
        self.path = path
        self.slotFiles = slotFiles
        self.deviceSecrets = deviceSecrets
        self.random = random
        self.outerKey = try outerKey.map(OuterKey.init)
        if create {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        lock = try DirectoryLock(path: path)
        store = SlotStore(path: path + "/data", random: random)
        if isInitialized {
            switch try store.layout() {
            case .version3:
                try? store.sweepTemporaries()
            case .container:
                guard let key = self.outerKey else { throw VaultError.outerKeyRequired }
                store.attach(try SlotContainer.open(files: slotFiles(store.path), key: key, random: random))
            case .migrating:
                // An interrupted migration is finished before anything else reads a slot.
                guard let key = self.outerKey else { throw VaultError.outerKeyRequired }
                store.attach(try SlotContainer.migrate(files: slotFiles(store.path), key: key, random: random))
            }
            MediaPool(path: path + "/media").sweepTemporaries()
        }
        PreviewCache.sweepLeftovers()
    }

    /// The media pool's path.
    public var mediaPath: String { path + "/media" }

    /// Whether the directory holds slots.
    public var isInitialized: Bool { (try? store.names().isEmpty == false) ?? false }

    /// The number of slot files.
    public func slotCount() throws -> Int { try store.names().count }

    /// The slot file names, sorted (audits).
    package func slotNames() throws -> [String] { try store.names() }

    /// A slot's contents: the version 3 file, or the container's stream for it (audits).
    package func slotContents(_ name: String) throws -> [UInt8] { try store.read(name) }

    /// Whether the slots are a version 4 container (docs/FORMAT.md §8), rather than
    /// version 3 slot files or no slots at all.
    public var isContainer: Bool { store.isContainer }

    /// Wraps every version 3 slot in the container under the directory's outer key
    /// (docs/FORMAT.md §8.10). Needs no password and no device secret; vaults keep their
    /// contents and passwords. Does nothing when the slots already are a container.
    ///
    /// - Parameter key: the outer key to wrap the slots under, when the directory was
    ///   opened without one (a version 3 directory needs none to open).
    public func migrateToContainer(outerKey key: SecureBytes? = nil) throws {
        if let key { outerKey = try OuterKey(key) }
        guard let outerKey else { throw VaultError.outerKeyRequired }
        try requireInitialized()
        try store.serialized {
            guard !store.isContainer else { return }
            let strays = try unmigratableSlotNames()
            guard strays.isEmpty else { throw ContainerError.unmigratableSlots(strays) }
            try store.sweepTemporaries()
            store.attach(try SlotContainer.migrate(files: slotFiles(store.path), key: outerKey, random: random))
        }
        logger.debug("migrated vault directory to the slot container")
    }

    /// Slot files version 3 reads but a container cannot take (docs/FORMAT.md §8.10):
    /// version 3 reads every `*.db.enc`, the container only canonical names. Migration
    /// refuses while there are any.
    public func unmigratableSlotNames() throws -> [String] {
        guard !store.isContainer else { return [] }
        return try store.names().filter { SlotID(fileName: $0) == nil }
    }

    /// Creates `data/`, `media/` and ten decoy slots keyed under the device credential,
    /// creating the device secret if there is none yet.
    ///
    /// - Parameters:
    ///   - kdf: the password KDF and cost of the decoys; real vaults made later in this
    ///     directory take the same, so that headers stay alike (docs/FORMAT.md §2).
    ///   - outerKey: makes the slots a version 4 container under this key (docs/FORMAT.md
    ///     §8), when the directory was opened without one.
    /// - Returns: false when the directory was already initialised (nothing changes).
    /// - Throws: ``VaultError/outerKeyRequired`` with no outer key: version 3 slot files
    ///   are no longer made.
    @discardableResult
    public func initialize(kdf: KDFParameters = .vault, outerKey key: SecureBytes? = nil) throws -> Bool {
        if isInitialized { return false }
        if let key { outerKey = try OuterKey(key) }
        guard let outerKey else { throw VaultError.outerKeyRequired }
        try FileIO.makeDirectory(store.path)
        try FileIO.makeDirectory(mediaPath)
        let credential = try DeviceSecretStore.credential(from: deviceSecrets.loadOrCreate(using: random))
        let decoys = try buildSlots(count: SlotFormat.minimumSlotCount, password: credential, kdf: kdf)
        // Pending files of a creation that never renamed any into place.
        try? store.sweepTemporaries()
        store.attach(try SlotContainer.create(
            files: slotFiles(store.path), key: outerKey, streams: decoys.map(\.contents), innerFormat: .blocks,
            random: random))
        logger.debug("initialised vault directory", metadata: ["slots": "\(decoys.count)"])
        return true
    }

    /// ``initialize(kdf:outerKey:)`` with PBKDF2 at `iterations` (tests pass small counts).
    @discardableResult
    public func initialize(iterations: Int, outerKey key: SecureBytes? = nil) throws -> Bool {
        try initialize(kdf: .pbkdf2(iterations: iterations), outerKey: key)
    }

    /// Builds `count` new vaults' slot contents under `password`, in parallel, with the
    /// MEK each was sealed with (`key`, when given, for a single slot): paged slots
    /// (docs/FORMAT.md §9) as their streams. Decoys and real vaults are made by this one
    /// function.
    func buildSlots(
        count: Int, password: SecureBytes, kdf: KDFParameters, key given: SecureBytes? = nil
    ) throws -> [(contents: [UInt8], key: SecureBytes)] {
        let random = self.random
        let results = ConcurrentResults<(contents: [UInt8], key: SecureBytes)>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            results.set(i, Result {
                let key = given ?? SecureBytes(randomCount: AESGCM.keySize, using: random)
                let contents = try PagedSlot.build(password: password, kdf: kdf, key: key, using: random).stream(using: random)
                return (contents, key)
            })
        }
        return try results.values()
    }

    /// Reads every slot's header; unreadable or malformed headers are nil.
    func readHeaders() throws -> (names: [String], headers: [SlotHeader?]) {
        let names = try store.names()
        let headers = names.map { name in try? SlotHeader.decode(store.readHeader(name)) }
        return (names, headers)
    }

    func requireInitialized() throws {
        guard isInitialized else { throw VaultError.notInitialized(path) }
    }
}
