import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraPages
import ObscuraStore

/// A new paged slot made in memory (docs/FORMAT.md §9.5, §9.7): the header block, the
/// catalog's pages and its tag-tree nodes as logical blocks, before one container commit
/// puts them in a slot. Real vaults, decoys and conversions are made by ``build(password:kdf:key:image:using:)``.
struct PagedSlot {
    /// The header: the §9.5 prefix the root is sealed under.
    let header: SlotHeader
    /// Logical blocks by id, 0 … `logicalCount` − 1.
    let blocks: [Int: [UInt8]]
    /// Logical blocks the slot uses.
    let logicalCount: Int

    /// Builds a paged slot for the MEK `key` under `password`: a §9.5 header with a new
    /// salt, and a catalog with the schema and no rows, or holding the rows of `image`
    /// (a version 3 catalog being converted). The catalog also keeps the version 3 header
    /// that exports of the vault carry (§7, §9.7), made from the same key derivation.
    static func build(
        password: SecureBytes, kdf: KDFParameters, key: SecureBytes, image: [UInt8]? = nil, using random: RandomSource
    ) throws -> PagedSlot {
        let headers = try SlotCodec.wrap(
            key: key, password: password, kdf: kdf,
            versions: [SlotFormat.pagedVersion, SlotFormat.version], using: random)
        let buffer = MemoryPageStore(recording: false)
        let paged = try PagedCatalog.create(store: buffer, mek: key, headerPrefix: headers[0].encoded(), random: random)
        defer { try? paged.close() }
        // The image is brought to the current schema first (a catalog written before a
        // migration lacks its tables): the copy then matches it table for table, and the
        // check below compares like with like.
        let copied = try image.map { image in
            let current = try Catalog.restore(image: image)
            defer { current.close() }
            var migrated = try current.image()
            defer { migrated.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) } }
            return try Catalog.copy(image: migrated, into: paged)
        }
        let catalog = try Catalog.paged(paged)
        if image != nil {
            try Vault.keyPlainContentHashes(in: catalog, mek: key)
            // A converted catalog is in layout A: no passkey comes with it. An export Obscura
            // wrote carries free rows already; whatever else an image holds in the table (an
            // enrolled row, an index, a trigger) is replaced by v11's table (review PR2).
            try catalog.replacePasskeyTable(using: random)
        }
        try catalog.setExportHeader(headers[1])
        // Every slot made, vault or decoy, has a drop key pair (§10.1).
        if try catalog.setting(DropFormat.keySetting) == nil { try Vault.addDropKey(to: catalog, using: random) }
        if let copied {
            var original = copied.rows
            // The commit that installs this slot frees the version 3 catalog: check the
            // copy, reopened from its blocks, against the image's rows first.
            try paged.close()
            let reopened = try Catalog.paged(try PagedCatalog.open(store: buffer, mek: key, headerBlock: try buffer.readBlock(0)))
            defer { reopened.close() }
            // The export header is the one row the copy adds.
            var counts = try reopened.rowCounts()
            counts["setting"] = nil
            original["setting"] = nil
            guard try reopened.isIntact(), counts == original, try reopened.itemKeys() == copied.items else {
                throw VaultError.corrupt("the converted catalog does not match the version 3 catalog")
            }
        }
        return PagedSlot(header: headers[0], blocks: buffer.blocks, logicalCount: buffer.logicalCount)
    }

    /// The slot's inner stream for a whole-slot commit (§8.9's stream over §9's blocks):
    /// blocks 0 … `logicalCount` − 1 in order.
    func stream(using random: RandomSource) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(logicalCount * ContainerFormat.payloadSize)
        for id in 0..<logicalCount {
            // Every id below the count is a page, node or the header (§9.4 leaves no gap).
            out += blocks[id] ?? random.bytes(ContainerFormat.payloadSize)
        }
        return out
    }
}
