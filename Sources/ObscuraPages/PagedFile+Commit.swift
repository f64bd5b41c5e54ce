import ObscuraCrypto

/// Commits (docs/FORMAT.md §9.6 "Reading and committing"): the staged pages, the leaves and uppers over
/// them and the re-sealed root, as one store commit.
extension PagedFile {
    /// Builds and makes one store commit of everything staged. Called under the lock.
    func commitStaged() throws {
        let count = stagedCount
        guard count <= PagesFormat.maxPages else { throw PagesError.tooLarge(pages: count) }
        guard !staged.isEmpty || count != root.pageCount else { return }
        let g = root.generation
        var pages = staged
        // SQLite may extend the file past pages it has not written (they read as zero
        // until then); every page up to P needs a block for its leaf's tag.
        if count > root.pageCount {
            for k in (root.pageCount + 1)...count where pages[k] == nil {
                pages[k] = try zeroPage(k, generation: g)
            }
        }
        let countChanged = count != root.pageCount
        var dirtyLeaves = Set(pages.keys.map(PageLayout.leafIndex(ofPage:)))
        if countChanged, count > 0 { dirtyLeaves.insert(PageLayout.leafIndex(ofPage: count)) }
        var dirtyUppers = Set(dirtyLeaves.map(PageLayout.upperIndex(ofLeaf:)))
        if countChanged, count > 0 {
            dirtyUppers.insert(PageLayout.upperIndex(ofLeaf: PageLayout.leafIndex(ofPage: count)))
        }
        let seals = UInt64(pages.count + dirtyLeaves.count + dirtyUppers.count)
        if root.seals + seals >= sealBudget {
            try commitNewGeneration(count: count)
            return
        }

        var blocks: [Int: [UInt8]] = [:]
        for (k, sealed) in pages { blocks[PageLayout.page(k)] = sealed }
        let newLeaves = try rebuildLeaves(dirtyLeaves, pages: pages, count: count)
        var sealedLeaves: [Int: [UInt8]] = [:]
        for (n, node) in newLeaves {
            let sealed = try seal(node, level: .leaf, index: n, generation: g)
            sealedLeaves[n] = sealed
            blocks[PageLayout.leaf(n)] = sealed
        }
        let newUppers = try rebuildUppers(dirtyUppers, sealedLeaves: sealedLeaves, count: count)
        var upperTags = Array(root.upperTags.prefix(PageLayout.upperCount(pages: count)))
        while upperTags.count < PageLayout.upperCount(pages: count) { upperTags.append(zeroTag) }
        for (m, node) in newUppers {
            let sealed = try seal(node, level: .upper, index: m, generation: g)
            blocks[PageLayout.upper(m)] = sealed
            upperTags[m] = tag(of: sealed)
        }
        var next = root
        next.sequence += 1
        next.seals += seals
        next.pageCount = count
        next.upperTags = upperTags
        try commit(next, blocks: blocks)
        for (n, node) in newLeaves { leaves[n] = node }
        for (m, node) in newUppers { uppers[m] = node }
        dropCachedNodes(past: count)
    }

    /// The leaves over `dirty`, each from its committed version (or empty), with the new
    /// tags of `pages` and zero entries past page `count`.
    private func rebuildLeaves(_ dirty: Set<Int>, pages: [Int: [UInt8]], count: Int) throws -> [Int: TagNode] {
        let t = PagesFormat.tagsPerNode
        let committedLeaves = PageLayout.leafCount(pages: root.pageCount)
        var result: [Int: TagNode] = [:]
        for n in dirty {
            var node = n < committedLeaves ? try leaf(n) : .empty
            for j in 0..<t {
                let k = n * t + j + 1
                if k > count {
                    node.tags[j] = zeroTag
                } else if let sealed = pages[k] {
                    node.tags[j] = tag(of: sealed)
                }
            }
            result[n] = node
        }
        return result
    }

    /// The upper nodes over `dirty`, with the new tags of the rebuilt leaves and zero
    /// entries past the last leaf.
    private func rebuildUppers(_ dirty: Set<Int>, sealedLeaves: [Int: [UInt8]], count: Int) throws -> [Int: TagNode] {
        let t = PagesFormat.tagsPerNode
        let committedUppers = PageLayout.upperCount(pages: root.pageCount)
        let leafCount = PageLayout.leafCount(pages: count)
        var result: [Int: TagNode] = [:]
        for m in dirty {
            var node = m < committedUppers ? try upper(m) : .empty
            for j in 0..<t {
                let n = m * t + j
                if n >= leafCount {
                    node.tags[j] = zeroTag
                } else if let sealed = sealedLeaves[n] {
                    node.tags[j] = tag(of: sealed)
                }
            }
            result[m] = node
        }
        return result
    }

    /// The commit that would take w to the budget starts generation g+1 instead: every
    /// page is read under g (or taken from the stage) and re-sealed, every node rebuilt.
    private func commitNewGeneration(count: Int) throws {
        let t = PagesFormat.tagsPerNode
        let old = root.generation
        guard old < UInt32.max else { throw PagesError.unsupported("the page-key generation is exhausted") }
        let g = old + 1
        var blocks: [Int: [UInt8]] = [:]
        var leafNodes = Array(repeating: TagNode.empty, count: PageLayout.leafCount(pages: count))
        try scratch.withUnsafeMutableBytes { page in
            defer { secureZero(page.baseAddress!, page.count) }
            for k in stride(from: 1, through: count, by: 1) {
                try readPage(k, into: page)
                let sealed = try PageCodec.seal(
                    UnsafeRawBufferPointer(page), page: k, vaultID: root.vaultID, generation: g,
                    key: keys.page(g), random: random)
                blocks[PageLayout.page(k)] = sealed
                leafNodes[(k - 1) / t].tags[(k - 1) % t] = tag(of: sealed)
            }
        }
        var upperNodes = Array(repeating: TagNode.empty, count: PageLayout.upperCount(pages: count))
        for (n, node) in leafNodes.enumerated() {
            let sealed = try seal(node, level: .leaf, index: n, generation: g)
            blocks[PageLayout.leaf(n)] = sealed
            upperNodes[n / t].tags[n % t] = tag(of: sealed)
        }
        var upperTags: [[UInt8]] = []
        for (m, node) in upperNodes.enumerated() {
            let sealed = try seal(node, level: .upper, index: m, generation: g)
            blocks[PageLayout.upper(m)] = sealed
            upperTags.append(tag(of: sealed))
        }
        var next = root
        next.sequence += 1
        next.generation = g
        next.seals = UInt64(count + leafNodes.count + upperNodes.count)
        next.pageCount = count
        next.upperTags = upperTags
        try commit(next, blocks: blocks)
        leaves.removeAll()
        uppers.removeAll()
    }

    /// Commits a header carrying a new prefix and nothing else (a password change).
    func commitHeader(prefix newPrefix: [UInt8]) throws {
        guard newPrefix.count == HeaderFormat.prefixSize else {
            throw PagesError.unsupported("a header prefix of \(newPrefix.count) bytes")
        }
        guard staged.isEmpty, stagedCount == root.pageCount else {
            throw PagesError.unsupported("a header commit inside a write")
        }
        var next = root
        next.sequence += 1
        let saved = prefix
        prefix = newPrefix
        do {
            try commit(next, blocks: [:])
        } catch {
            prefix = saved
            throw error
        }
    }

    /// Seals the root under the prefix (and in layout B the fields, drawn afresh for this
    /// commit) and makes one store commit of `blocks` and the header; on success the new
    /// root is current and the stage is empty.
    private func commit(_ proposed: CatalogRoot, blocks: [Int: [UInt8]]) throws {
        var all = blocks
        var next = proposed
        let sealingPrefix = nextPrefix ?? prefix
        // A layout-B block 0 holds the vault's passkey fields: committing it without a
        // provider would write layout A and drop every passkey, so that is refused
        // (PC1). Going back to A is the provider's explicit nil.
        let fields: [UInt8]
        if let provider = nextHeaderFields ?? headerFields {
            fields = try provider() ?? []
        } else if root.layout == .b {
            throw PagesError.unsupported("a commit of a layout-B header without its passkey fields")
        } else {
            fields = []
        }
        next.layout = fields.isEmpty ? .a : .b
        // Layout B's root has room for fewer upper tags (§9.5).
        guard next.pageCount <= next.layout.maxPages else { throw PagesError.tooLarge(pages: next.pageCount) }
        all[PageLayout.header] = try next.sealHeader(prefix: sealingPrefix, fields: fields, rootKey: keys.root, random: random)
        try store.commit(all, logicalCount: PageLayout.logicalCount(pages: next.pageCount), minimumBucket: nextMinimumBucket)
        prefix = sealingPrefix
        nextPrefix = nil
        if let nextHeaderFields { headerFields = nextHeaderFields }
        nextHeaderFields = nil
        root = next
        staged = [:]
        stagedCount = next.pageCount
        recordCommit(blocks: all.count)
    }

    private func dropCachedNodes(past count: Int) {
        let leafCount = PageLayout.leafCount(pages: count)
        let upperCount = PageLayout.upperCount(pages: count)
        leaves = leaves.filter { $0.key < leafCount }
        uppers = uppers.filter { $0.key < upperCount }
    }

    private func zeroPage(_ k: Int, generation g: UInt32) throws -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: PagesFormat.pageSize)
        return try zeros.withUnsafeBytes {
            try PageCodec.seal($0, page: k, vaultID: root.vaultID, generation: g, key: keys.page(g), random: random)
        }
    }

    private func seal(_ node: TagNode, level: TagNode.Level, index: Int, generation g: UInt32) throws -> [UInt8] {
        try node.seal(level: level, index: index, vaultID: root.vaultID, generation: g, key: keys.page(g), random: random)
    }

    private var zeroTag: [UInt8] { [UInt8](repeating: 0, count: PagesFormat.tagSize) }

    private func tag(of sealed: [UInt8]) -> [UInt8] { Array(sealed.suffix(PagesFormat.tagSize)) }
}
