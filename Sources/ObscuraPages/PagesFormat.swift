import ObscuraCrypto

/// The paged catalog's format constants (docs/FORMAT.md §9), named once so that code
/// and spec can be read side by side.
enum PagesFormat {
    /// §9 "Pages": SQLite's page size.
    static let pageSize = 4096
    /// §9 "Pages": reserved bytes at the end of every page, kept zero.
    static let reservedBytes = 56
    /// §9 "Pages": the bytes of a page SQLite uses and the pager seals.
    static let usableBytes = pageSize - reservedBytes
    /// §9 intro: the payload of one logical block (a sealed page, node or header).
    static let blockPayload = 4068
    /// §9 "Tag tree": tags per node, T.
    static let tagsPerNode = 252
    /// §9 "Tag tree": a tag is the last 16 bytes of a sealed block (the GCM tag).
    static let tagSize = AESGCM.tagSize
    /// §9 "Tag tree": a node's plaintext, T tags then 8 zero bytes.
    static let nodePlaintextSize = usableBytes
    /// §9 "Header": upper-node tags the root holds.
    static let rootUpperTags = 240
    /// §9 "Header": the most pages a catalog can hold, 240·T².
    static let maxPages = rootUpperTags * tagsPerNode * tagsPerNode
    /// §9 "Commit": w may not reach this; the commit that would starts generation g+1.
    static let sealBudget: UInt64 = 1 << 31

    /// §9 "Pages": AD_page's label, "obsv4pg" 00.
    static let pageLabel: [UInt8] = Array("obsv4pg".utf8) + [0]
    /// §9 "Tag tree": AD_node's label, "obsv4tn" 00.
    static let nodeLabel: [UInt8] = Array("obsv4tn".utf8) + [0]
    /// §9 "Tag tree": AD_node's level of a leaf.
    static let leafLevel: UInt8 = 1
    /// §9 "Tag tree": AD_node's level of an upper node.
    static let upperLevel: UInt8 = 2
    /// §9 "Keys": the vault id's size.
    static let vaultIDSize = 16
}

/// The header block's layout (docs/FORMAT.md §9 "Header").
enum HeaderFormat {
    /// §9 "Header": bytes [0, 136), built by the vault layer and opaque to the pager.
    static let prefixSize = 136
    /// §9 "Header": the root plaintext's size.
    static let rootPlaintextSize = 3904
    /// §9 "Header": the sealed root at offset 136, 12 + 3904 + 16 bytes.
    static let sealedRootSize = rootPlaintextSize + AESGCM.overhead

    /// §9 "Header", root plaintext: vault id at 0 (16 bytes).
    static let vaultIDOffset = 0
    /// §9 "Header", root plaintext: sequence UInt64 at 16.
    static let sequenceOffset = 16
    /// §9 "Header", root plaintext: generation g UInt32 at 24.
    static let generationOffset = 24
    /// §9 "Header", root plaintext: seals w UInt64 at 28.
    static let sealsOffset = 28
    /// §9 "Header", root plaintext: page count P UInt32 at 36.
    static let pageCountOffset = 36
    /// §9 "Header", root plaintext: 4 zero bytes at 40.
    static let zeroAfterCountOffset = 40
    /// §9 "Header", root plaintext: 240 upper tags at 44.
    static let upperTagsOffset = 44
    /// §9 "Header", root plaintext: 20 zero bytes at 3884, to the end.
    static let trailingZeroOffset = upperTagsOffset + PagesFormat.rootUpperTags * PagesFormat.tagSize
}
