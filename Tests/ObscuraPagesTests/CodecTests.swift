import ObscuraCrypto
import ObscuraPages
import Testing

@Suite struct CodecTests {
    private func root(pages: Int = 1) -> CatalogRoot {
        CatalogRoot(
            vaultID: [UInt8](repeating: 0x11, count: 16), sequence: 5, generation: 2, seals: 77, pageCount: pages,
            upperTags: (0..<PageLayout.upperCount(pages: pages)).map { [UInt8](repeating: UInt8($0 + 1), count: 16) })
    }

    @Test func rootRoundTrip() throws {
        let original = root(pages: PagesFormat.tagsPerNode * PagesFormat.tagsPerNode + 1)
        let plaintext = original.encoded()
        #expect(plaintext.count == 3904)
        #expect(try CatalogRoot.decode(plaintext) == original)
    }

    /// Every field a reader must check: the zero fields, unused upper tags, P's bound,
    /// and a nonzero generation and sequence.
    @Test func rootZeroFieldsAndUnusedTagsAreEnforced() throws {
        let good = root().encoded()
        func rejects(_ change: (inout [UInt8]) -> Void) -> Bool {
            var bytes = good
            change(&bytes)
            guard case .damagedRoot = pagesError({ _ = try CatalogRoot.decode(bytes) }) else { return false }
            return true
        }
        #expect(try CatalogRoot.decode(good) == root())
        #expect(rejects { $0[43] = 1 })                       // zero field after P
        #expect(rejects { $0[44 + 16] = 1 })                  // second upper tag, unused with P = 1
        #expect(rejects { $0[44 + 239 * 16 + 15] = 1 })       // last upper tag
        #expect(rejects { $0[3884] = 1 })                     // trailing zero bytes
        #expect(rejects { $0[3903] = 1 })
        #expect(rejects { $0[24..<28] = [0, 0, 0, 0] })       // generation 0
        #expect(rejects { $0[16..<24] = [0, 0, 0, 0, 0, 0, 0, 0] }) // sequence 0
        #expect(rejects { bytes in                            // P past 240·T²
            let p = UInt32(PagesFormat.maxPages + 1).bigEndian
            withUnsafeBytes(of: p) { bytes[36..<40] = ArraySlice($0) }
        })
        #expect(rejects { $0.removeLast() })
    }

    @Test func nodeZeroEntriesAreEnforced() throws {
        var node = TagNode.empty
        node.tags[0] = [UInt8](repeating: 9, count: 16)
        node.tags[1] = [UInt8](repeating: 8, count: 16)
        let plaintext = node.encoded()
        #expect(plaintext.count == 4040)
        #expect(TagNode.decode(plaintext, children: 2) == node)
        #expect(TagNode.decode(plaintext, children: 1) == nil)   // a used entry past the children
        var trailing = plaintext
        trailing[4039] = 1
        #expect(TagNode.decode(trailing, children: 252) == nil)
    }

    /// A sealed node opens only at its own level and index and under its parent's tag.
    @Test func nodeIsBoundToLevelIndexAndTag() throws {
        let key = SecureBytes(copying: [UInt8](repeating: 7, count: 32))
        let vault = [UInt8](repeating: 0x22, count: 16)
        var node = TagNode.empty
        node.tags[0] = [UInt8](repeating: 3, count: 16)
        let sealed = try node.seal(level: .leaf, index: 4, vaultID: vault, generation: 1, key: key, random: SystemRandom())
        let tag = sealed.suffix(16)
        #expect(try TagNode.open(sealed, level: .leaf, index: 4, children: 1, expectedTag: tag, vaultID: vault, generation: 1, key: key) == node)
        for (level, index, g) in [(TagNode.Level.upper, 4, UInt32(1)), (.leaf, 5, 1), (.leaf, 4, 2)] {
            #expect(throws: PagesError.damagedNode(level: Int(level.rawValue), index: index)) {
                _ = try TagNode.open(sealed, level: level, index: index, children: 1, expectedTag: tag, vaultID: vault, generation: g, key: key)
            }
        }
        #expect(throws: PagesError.damagedNode(level: 1, index: 4)) {
            _ = try TagNode.open(sealed, level: .leaf, index: 4, children: 1, expectedTag: ArraySlice(repeating: 0, count: 16),
                                 vaultID: vault, generation: 1, key: key)
        }
    }

    /// A page whose reserved bytes are not zero is refused rather than stored changed.
    @Test func nonzeroReservedBytesAreRefused() throws {
        var page = [UInt8](repeating: 0, count: 4096)
        page[4095] = 1
        #expect(throws: PagesError.unsupported("page 3 has nonzero reserved bytes")) {
            _ = try page.withUnsafeBytes {
                try PageCodec.seal($0, page: 3, vaultID: [UInt8](repeating: 0, count: 16), generation: 1,
                                   key: Fixture.mek, random: SystemRandom())
            }
        }
    }

    /// Known answers from an independent implementation of §9 (Python's `cryptography`,
    /// the same seeded nonces): fixed MEK, vault id, g = 1.
    @Test func knownAnswers() throws {
        let keys = try PageKeys(mek: Fixture.mek)
        #expect(SHA256Digest.hash(keys.root) == SHA256Digest.hash(SecureBytes(copying: hex("3200d012aebd4d31f1ff975366275ecb92bda747642aa15262d8593dacedb75e"))))
        #expect(keys.page(1) == SecureBytes(copying: hex("290aef3fbee574a5764705e4ef356677e1877d31d3507b6551f4787a384118d7")))
        let random = SeededRandom(seed: "obscura pages vectors")
        let vault = [UInt8](repeating: 0x11, count: 16)
        let page = (0..<4096).map { $0 < 4040 ? UInt8($0 % 251) : 0 }
        let sealedPage = try page.withUnsafeBytes {
            try PageCodec.seal($0, page: 1, vaultID: vault, generation: 1, key: keys.page(1), random: random)
        }
        var node = TagNode.empty
        for j in 0..<3 { node.tags[j] = [UInt8](repeating: UInt8(j + 1), count: 16) }
        let sealedNode = try node.seal(level: .leaf, index: 0, vaultID: vault, generation: 1, key: keys.page(1), random: random)
        let root = CatalogRoot(vaultID: vault, sequence: 1, generation: 1, seals: 3, pageCount: 1,
                               upperTags: [[UInt8](repeating: 0xAB, count: 16)])
        let header = try root.sealHeader(prefix: Fixture.prefix, rootKey: keys.root, random: random)
        #expect(SHA256Digest.hash(sealedPage) == hex("83586fbaea30f5b5f2121094add10f2590e47f4a8cc9460550b675349c80984d"))
        #expect(SHA256Digest.hash(sealedNode) == hex("e1b67026c53200ef01666137b94ba61834ae929abf81dea309127351c7e06e69"))
        #expect(SHA256Digest.hash(header) == hex("ea18731acc4936ab4b0805da4a5922c823352d4587f429c30d4daec866271a77"))

        // And they open back.
        var opened = [UInt8](repeating: 0xFF, count: 4096)
        try opened.withUnsafeMutableBytes {
            try PageCodec.open(sealedPage, page: 1, expectedTag: sealedPage.suffix(16), vaultID: vault, generation: 1,
                               key: keys.page(1), into: $0)
        }
        #expect(opened == page)
        #expect(try CatalogRoot.openHeader(header, rootKey: keys.root).root == root)
    }
}

func hex(_ s: String) -> [UInt8] {
    var out = [UInt8]()
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}
