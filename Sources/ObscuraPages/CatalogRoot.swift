import ObscuraCrypto

/// The root of the tag tree, sealed in the header under K_root with the header bytes
/// before it as associated data (docs/FORMAT.md §9.5 "Header and root").
///
/// Plaintext, 3904 bytes in layout A (3664 in layout B): vault id (16) ‖ sequence UInt64 ‖
/// g UInt32 ‖ w UInt64 ‖ P UInt32 ‖ 4 zero bytes ‖ 240 upper tags (225 in B; 16 each,
/// ⌈P/T²⌉ used, the rest zero) ‖ 20 zero bytes.
package struct CatalogRoot: Equatable {
    /// Random at creation, never changes: it binds every page and node to this catalog.
    package var vaultID: [UInt8]
    /// 1 at creation, +1 per commit.
    package var sequence: UInt64
    /// The page-key generation g.
    package var generation: UInt32
    /// Seals made under K_page(g) so far, pages and nodes (the nonce budget).
    package var seals: UInt64
    /// Pages in the database, P.
    package var pageCount: Int
    /// The tags of the upper nodes, ⌈P/T²⌉ of them.
    package var upperTags: [[UInt8]]
    /// The layout of the block 0 this root is (or was last) sealed in.
    package var layout: HeaderLayout

    /// A root with the given fields.
    package init(
        vaultID: [UInt8], sequence: UInt64, generation: UInt32, seals: UInt64, pageCount: Int, upperTags: [[UInt8]],
        layout: HeaderLayout = .a
    ) {
        self.vaultID = vaultID
        self.sequence = sequence
        self.generation = generation
        self.seals = seals
        self.pageCount = pageCount
        self.upperTags = upperTags
        self.layout = layout
    }

    /// The plaintext: 3904 bytes in layout A, 3664 in B.
    package func encoded() -> [UInt8] {
        var out = vaultID
        out.appendBigEndian(sequence)
        out.appendBigEndian(generation)
        out.appendBigEndian(seals)
        out.appendBigEndian(UInt32(pageCount))
        out.appendBigEndian(UInt32(0))
        for tag in upperTags { out.append(contentsOf: tag) }
        out.append(contentsOf: [UInt8](repeating: 0, count: layout.rootPlaintextSize - out.count))
        return out
    }

    /// Decodes a plaintext of `layout`, checking every field a reader must (§9.5 "Header
    /// and root"): the zero fields, the page count's bound for the layout and that the
    /// unused upper tags are zero.
    package static func decode(_ plaintext: [UInt8], layout: HeaderLayout = .a) throws -> CatalogRoot {
        func damaged(_ reason: String) -> PagesError { .damagedRoot(reason) }
        guard plaintext.count == layout.rootPlaintextSize else { throw damaged("wrong size") }
        let pages = Int(plaintext.readBigEndian(UInt32.self, at: HeaderFormat.pageCountOffset))
        guard pages <= layout.maxPages else { throw damaged("page count out of range") }
        guard plaintext.readBigEndian(UInt32.self, at: HeaderFormat.zeroAfterCountOffset) == 0 else {
            throw damaged("reserved field is not zero")
        }
        let trailing = plaintext.count - HeaderFormat.trailingZeroSize
        guard plaintext[trailing...].allSatisfy({ $0 == 0 }) else {
            throw damaged("trailing bytes are not zero")
        }
        let used = PageLayout.upperCount(pages: pages)
        let firstUnused = HeaderFormat.upperTagsOffset + used * PagesFormat.tagSize
        guard plaintext[firstUnused..<trailing].allSatisfy({ $0 == 0 }) else {
            throw damaged("unused upper tags are not zero")
        }
        let generation = plaintext.readBigEndian(UInt32.self, at: HeaderFormat.generationOffset)
        let sequence = plaintext.readBigEndian(UInt64.self, at: HeaderFormat.sequenceOffset)
        guard generation >= 1, sequence >= 1 else { throw damaged("generation or sequence is zero") }
        let tags = (0..<used).map { m in
            let at = HeaderFormat.upperTagsOffset + m * PagesFormat.tagSize
            return Array(plaintext[at..<(at + PagesFormat.tagSize)])
        }
        return CatalogRoot(
            vaultID: Array(plaintext[0..<PagesFormat.vaultIDSize]), sequence: sequence, generation: generation,
            seals: plaintext.readBigEndian(UInt64.self, at: HeaderFormat.sealsOffset), pageCount: pages,
            upperTags: tags, layout: layout)
    }

    /// The header block in this root's layout: `prefix` (136 bytes) ‖ Seal(K_root, root,
    /// AD = prefix) in layout A, or `prefix` ‖ `fields` (240 bytes) ‖ Seal(K_root, root,
    /// AD = prefix ‖ fields) in layout B, so that the root covers the fields.
    package func sealHeader(prefix: [UInt8], fields: [UInt8] = [], rootKey: SecureBytes, random: RandomSource) throws -> [UInt8] {
        guard prefix.count == HeaderFormat.prefixSize else {
            throw PagesError.unsupported("a header prefix of \(prefix.count) bytes")
        }
        guard fields.count == (layout == .b ? HeaderFormat.fieldsSize : 0) else {
            throw PagesError.unsupported("\(fields.count) bytes of passkey fields in layout \(layout)")
        }
        let header = prefix + fields
        let block = header + (try AESGCM.seal(encoded(), key: rootKey, authenticating: header, using: random))
        assert(block.count == PagesFormat.blockPayload)
        return block
    }

    /// Opens the root of a header block, trying layout B first, then A (§9.5): AES-GCM
    /// does not commit to one parse, so only a fixed order makes every reader agree on one
    /// root. The prefix is returned as it is; the fields of a layout-B block are not
    /// returned, since every commit draws them afresh.
    package static func openHeader(_ block: [UInt8], rootKey: SecureBytes) throws -> (prefix: [UInt8], root: CatalogRoot) {
        guard block.count == PagesFormat.blockPayload else { throw PagesError.damagedRoot("header block has the wrong size") }
        let prefix = Array(block[0..<HeaderFormat.prefixSize])
        for layout in [HeaderLayout.b, .a] {
            let header = Array(block[0..<layout.headerSize])
            guard let plaintext = try? AESGCM.open(block[layout.headerSize...], key: rootKey, authenticating: header) else { continue }
            return (prefix, try decode(plaintext, layout: layout))
        }
        throw PagesError.damagedRoot("the root does not open (wrong key, or the header was altered)")
    }
}
