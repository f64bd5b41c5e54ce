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
    /// §9.5 "Header and root": upper-node tags the root holds (layout A).
    package static let rootUpperTags = 240
    /// §9.5 "Header and root": the most pages a catalog can hold, 240·T² (layout A).
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

/// The two layouts of block 0 (docs/FORMAT.md §9.5 "Header and root", §9.8): A, the
/// prefix and then the sealed root; B, the prefix, four passkey fields of 60 bytes, and
/// then a root with room for 225 upper tags instead of 240. A vault's block 0 is in
/// layout B exactly while it holds a passkey; readers try B first, then A.
public enum HeaderLayout: Sendable, Equatable {
    /// Prefix ‖ sealed root (3904-byte root).
    case a
    /// Prefix ‖ 240 bytes of passkey fields ‖ sealed root (3664-byte root).
    case b

    /// The header bytes the root is sealed under: the prefix, and in layout B the fields.
    var headerSize: Int { self == .a ? HeaderFormat.prefixSize : HeaderFormat.prefixSize + HeaderFormat.fieldsSize }
    /// §9.5: the root plaintext's size, 4068 − header − 28.
    var rootPlaintextSize: Int { PagesFormat.blockPayload - headerSize - AESGCM.overhead }
    /// §9.5: upper tags the root holds, 240 (A) or 225 (B).
    var upperTagCapacity: Int { (rootPlaintextSize - HeaderFormat.upperTagsOffset - HeaderFormat.trailingZeroSize) / PagesFormat.tagSize }
    /// §9.5: the most pages a catalog in this layout holds, capacity · T².
    var maxPages: Int { upperTagCapacity * PagesFormat.tagsPerNode * PagesFormat.tagsPerNode }
}

/// The header block's layout (docs/FORMAT.md §9.5 "Header and root").
package enum HeaderFormat {
    /// §9.5 "Header and root": bytes [0, 136), built by the vault layer and opaque to the pager.
    package static let prefixSize = 136
    /// §9.8: the passkey fields after the prefix in layout B, 4 × 60 bytes, opaque to the pager.
    package static let fieldsSize = 240
    /// §9.5 "Header and root": the root's trailing zero bytes, in either layout.
    package static let trailingZeroSize = 20
    /// §9.5 "Header and root": the root plaintext's size (layout A).
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
    /// §9.5 "Header and root", root plaintext: 20 zero bytes at 3884 (layout A), to the end.
    package static let trailingZeroOffset = upperTagsOffset + PagesFormat.rootUpperTags * PagesFormat.tagSize
}
