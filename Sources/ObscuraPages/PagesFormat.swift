import ObscuraCrypto

/// The paged catalog's format constants (docs/FORMAT.md §9), named once so that code
/// and spec can be read side by side.
package enum PagesFormat {
    /// §9.2 "Pages": SQLite's page size.
    package static let pageSize = 4096
    /// §9.2 "Pages": reserved bytes at the end of every page, kept zero.
    package static let reservedBytes = 56
    /// §9.2 "Pages": the bytes of a page SQLite uses and the pager seals.
    package static let usableBytes = pageSize - reservedBytes
    /// §9 intro: the payload of one logical block (a sealed page, node or header).
    package static let blockPayload = 4068
    /// §9.3 "Tag tree": tags per node, T.
    package static let tagsPerNode = 252
    /// §9.3 "Tag tree": a tag is the last 16 bytes of a sealed block (the GCM tag).
    package static let tagSize = AESGCM.tagSize
    /// §9.3 "Tag tree": a node's plaintext, T tags then 8 zero bytes.
    package static let nodePlaintextSize = usableBytes
    /// §9.5 "Header and root": upper-node tags the root holds.
    package static let rootUpperTags = 240
    /// §9.5 "Header and root": the most pages a catalog can hold, 240·T².
    package static let maxPages = rootUpperTags * tagsPerNode * tagsPerNode
    /// §9.6 "Reading and committing": w may not reach this; the commit that would starts generation g+1.
    package static let sealBudget: UInt64 = 1 << 31

    /// §9.2 "Pages": AD_page's label, "obsv4pg" 00.
    package static let pageLabel: [UInt8] = Array("obsv4pg".utf8) + [0]
    /// §9.3 "Tag tree": AD_node's label, "obsv4tn" 00.
    package static let nodeLabel: [UInt8] = Array("obsv4tn".utf8) + [0]
    /// §9.3 "Tag tree": AD_node's level of a leaf.
    package static let leafLevel: UInt8 = 1
    /// §9.3 "Tag tree": AD_node's level of an upper node.
    package static let upperLevel: UInt8 = 2
    /// §9.1 "Keys": the vault id's size.
    package static let vaultIDSize = 16
}

/// The header block's layout (docs/FORMAT.md §9.5 "Header and root").
package enum HeaderFormat {
    /// §9.5 "Header and root": bytes [0, 136), built by the vault layer and opaque to the pager.
    package static let prefixSize = 136
    /// §9.5 "Header and root": the root plaintext's size.
    package static let rootPlaintextSize = 3904
    /// §9.5 "Header and root": the sealed root at offset 136, 12 + 3904 + 16 bytes.
    package static let sealedRootSize = rootPlaintextSize + AESGCM.overhead

    /// §9.5 "Header and root", root plaintext: vault id at 0 (16 bytes).
    package static let vaultIDOffset = 0
    /// §9.5 "Header and root", root plaintext: sequence UInt64 at 16.
    package static let sequenceOffset = 16
    /// §9.5 "Header and root", root plaintext: generation g UInt32 at 24.
    package static let generationOffset = 24
    /// §9.5 "Header and root", root plaintext: seals w UInt64 at 28.
    package static let sealsOffset = 28
    /// §9.5 "Header and root", root plaintext: page count P UInt32 at 36.
    package static let pageCountOffset = 36
    /// §9.5 "Header and root", root plaintext: 4 zero bytes at 40.
    package static let zeroAfterCountOffset = 40
    /// §9.5 "Header and root", root plaintext: 240 upper tags at 44.
    package static let upperTagsOffset = 44
    /// §9.5 "Header and root", root plaintext: 20 zero bytes at 3884, to the end.
    package static let trailingZeroOffset = upperTagsOffset + PagesFormat.rootUpperTags * PagesFormat.tagSize
}
