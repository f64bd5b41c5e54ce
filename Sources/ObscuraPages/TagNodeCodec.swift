import ObscuraCrypto

/// One tag-tree node (docs/FORMAT.md §9.3 "Tag tree"): a leaf lists the tags of its
/// pages, an upper node the tags of its leaves. The plaintext is 252 tags of 16 bytes
/// then 8 zero bytes; entries past the last child are zero.
package struct TagNode: Equatable {
    /// A leaf (level 1) or an upper node (level 2).
    package enum Level: UInt8 {
        /// Tags of pages.
        case leaf = 1
        /// Tags of leaves.
        case upper = 2
    }

    /// The 252 entries, each 16 bytes; a zero entry past the last child.
    package var tags: [[UInt8]]

    /// A node with no children yet.
    package static var empty: TagNode {
        TagNode(tags: Array(repeating: [UInt8](repeating: 0, count: PagesFormat.tagSize), count: PagesFormat.tagsPerNode))
    }

    /// §9.3 "Tag tree": AD_node = "obsv4tn" 00 ‖ vault id ‖ level ‖ UInt32BE(index) ‖ UInt32BE(g), 33 bytes.
    package static func associatedData(vaultID: [UInt8], level: Level, index: Int, generation g: UInt32) -> [UInt8] {
        var ad = PagesFormat.nodeLabel + vaultID
        ad.append(level.rawValue)
        ad.appendBigEndian(UInt32(index))
        ad.appendBigEndian(g)
        return ad
    }

    /// The 4040-byte plaintext.
    package func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(PagesFormat.nodePlaintextSize)
        for tag in tags { out.append(contentsOf: tag) }
        out.append(contentsOf: [UInt8](repeating: 0, count: PagesFormat.nodePlaintextSize - out.count))
        return out
    }

    /// Decodes a plaintext whose first `children` entries are used; the entries after
    /// them and the 8 trailing bytes must be zero.
    package static func decode(_ plaintext: [UInt8], children: Int) -> TagNode? {
        guard plaintext.count == PagesFormat.nodePlaintextSize, (0...PagesFormat.tagsPerNode).contains(children) else {
            return nil
        }
        let tagBytes = PagesFormat.tagsPerNode * PagesFormat.tagSize
        guard plaintext[(children * PagesFormat.tagSize)...].allSatisfy({ $0 == 0 }) else { return nil }
        let tags = stride(from: 0, to: tagBytes, by: PagesFormat.tagSize).map {
            Array(plaintext[$0..<($0 + PagesFormat.tagSize)])
        }
        return TagNode(tags: tags)
    }

    /// Seals the node as `level` `index` of generation `g`.
    package func seal(
        level: Level, index: Int, vaultID: [UInt8], generation g: UInt32, key: SecureBytes, random: RandomSource
    ) throws -> [UInt8] {
        try AESGCM.seal(
            encoded(), key: key,
            authenticating: Self.associatedData(vaultID: vaultID, level: level, index: index, generation: g),
            using: random)
    }

    /// Verifies a sealed node against the tag its parent records, opens and decodes it.
    package static func open(
        _ sealed: [UInt8], level: Level, index: Int, children: Int, expectedTag tag: ArraySlice<UInt8>,
        vaultID: [UInt8], generation g: UInt32, key: SecureBytes
    ) throws -> TagNode {
        let damaged = PagesError.damagedNode(level: Int(level.rawValue), index: index)
        guard sealed.count == PagesFormat.blockPayload,
              ConstantTime.equals(sealed[(sealed.count - PagesFormat.tagSize)...], tag) else { throw damaged }
        let ad = associatedData(vaultID: vaultID, level: level, index: index, generation: g)
        guard let plaintext = try? AESGCM.open(sealed, key: key, authenticating: ad),
              let node = decode(plaintext, children: children) else { throw damaged }
        return node
    }
}
