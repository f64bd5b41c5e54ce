// Forges blocks of a paged catalog (docs/FORMAT.md §9) for the plaintext fuzz target.
import Foundation
import ObscuraCrypto
import ObscuraPages

/// Seals a block of a catalog anew from given plaintext and chains it into the tree, as a
/// holder of the catalog key could: the block, then the leaf and upper node above it and
/// the root, each over its child's new tag, so that only the decoders' own checks can
/// refuse what the plaintext says. The catalog has one upper node and one leaf.
final class TreeForger {
    let keys: PageKeys
    /// The root the forged header starts from.
    private(set) var root: CatalogRoot
    /// The catalog's blocks, with the forged ones in place.
    private(set) var blocks: [Int: [UInt8]]
    private let random = SystemRandom()

    init(keys: PageKeys, root: CatalogRoot, blocks: [Int: [UInt8]]) {
        precondition(root.pageCount <= PagesFormat.tagsPerNode, "a forger's catalog has one leaf")
        self.keys = keys
        self.root = root
        self.blocks = blocks
    }

    /// A header whose root is `plaintext`, sealed as it is.
    func sealRoot(plaintext: [UInt8]) -> [UInt8] {
        pagesPrefix + (try! AESGCM.seal(plaintext, key: keys.root, authenticating: pagesPrefix, using: random))
    }

    /// The catalog as the pager opens it from `header` over the forged blocks; nil when
    /// the root is refused.
    func open(header: [UInt8]) -> PagedFile? {
        let store = MemoryPageStore()
        store.blocks = blocks.merging([PageLayout.header: header]) { $1 }
        return try? PagedFile.open(store: store, mek: fuzzKey, headerBlock: header, random: random)
    }

    /// Seals `plaintext` (4040 bytes) as upper node 0 or leaf 0, chains it up, and returns
    /// the new header.
    func replacing(_ level: TagNode.Level, plaintext: [UInt8]) -> [UInt8] {
        let sealed = try! AESGCM.seal(
            plaintext, key: key,
            authenticating: TagNode.associatedData(vaultID: root.vaultID, level: level, index: 0, generation: root.generation),
            using: random)
        if level == .leaf {
            blocks[PageLayout.leaf(0)] = sealed
            return chainLeaf()
        }
        blocks[PageLayout.upper(0)] = sealed
        return chainUpper()
    }

    /// Seals `plaintext` (4040 bytes, then 56 zero bytes) as page `k`, chains it up, and
    /// returns the new header.
    func replacingPage(_ k: Int, plaintext: [UInt8]) -> [UInt8] {
        let page = plaintext + [UInt8](repeating: 0, count: PagesFormat.reservedBytes)
        blocks[PageLayout.page(k)] = try! page.withUnsafeBytes {
            try PageCodec.seal($0, page: k, vaultID: root.vaultID, generation: root.generation, key: key, random: random)
        }
        var leaf = try! node(.leaf)
        leaf.tags[k - 1] = tag(PageLayout.page(k))
        blocks[PageLayout.leaf(0)] = seal(leaf, .leaf)
        return chainLeaf()
    }

    private var key: SecureBytes { keys.page(root.generation) }

    private func tag(_ id: Int) -> [UInt8] { Array(blocks[id]!.suffix(PagesFormat.tagSize)) }

    /// Upper 0 over the current leaf 0, then the root.
    private func chainLeaf() -> [UInt8] {
        var upper = try! node(.upper)
        upper.tags[0] = tag(PageLayout.leaf(0))
        blocks[PageLayout.upper(0)] = seal(upper, .upper)
        return chainUpper()
    }

    /// The root over the current upper 0, sealed in a header.
    private func chainUpper() -> [UInt8] {
        root.upperTags[0] = tag(PageLayout.upper(0))
        return try! root.sealHeader(prefix: pagesPrefix, rootKey: keys.root, random: random)
    }

    /// The base catalog's node, opened with the tag its block carries (the forger trusts
    /// its own blocks; the pager under test checks the chain).
    private func node(_ level: TagNode.Level) throws -> TagNode {
        let id = level == .leaf ? PageLayout.leaf(0) : PageLayout.upper(0)
        let children = level == .leaf ? root.pageCount : 1
        return try TagNode.open(
            pagesBase[id]!, level: level, index: 0, children: children, expectedTag: pagesBase[id]!.suffix(16)[...],
            vaultID: root.vaultID, generation: root.generation, key: key)
    }

    private func seal(_ node: TagNode, _ level: TagNode.Level) -> [UInt8] {
        try! node.seal(level: level, index: 0, vaultID: root.vaultID, generation: root.generation, key: key, random: random)
    }
}
