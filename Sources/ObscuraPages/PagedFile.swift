import CObscuraPageVFS
import Foundation
import ObscuraCrypto

/// The main database file SQLite sees through the "obscura-pages" VFS: pages sealed one
/// by one over a ``PageStore`` and verified through the tag tree (docs/FORMAT.md §9).
///
/// A write seals its page at once and stages the sealed bytes (SQLite's page cache is
/// the only place a plaintext page lives); the sync that ends SQLite's commit turns the
/// staged pages into one store commit (PagedFile+Commit.swift). Reads verify every
/// block against its parent's tag before opening it. A failed write path breaks the
/// file: every later call fails until the owner reopens from the store.
package final class PagedFile: @unchecked Sendable {
    // @unchecked: every mutable property is used under `lock` only. SQLite calls the VFS
    // from the DatabaseQueue's thread; the owner's header commits come from others.

    let store: PageStore
    let keys: PageKeys
    let random: RandomSource
    let lock = NSLock()

    /// The header prefix the root is sealed under.
    var prefix: [UInt8]
    /// A prefix the next commit seals the root under instead, and keeps from then on
    /// (a password change made in the same commit as the rows it changes).
    var nextPrefix: [UInt8]?
    /// The root as last committed.
    var root: CatalogRoot
    /// Draws the passkey fields of the next commit's block 0 (docs/FORMAT.md §9.8): 240
    /// bytes for layout B, nil for layout A. None set means layout A for a file opened in
    /// layout A, and a refused commit for one opened in layout B (its fields would be
    /// lost). Called under the lock, inside SQLite's commit: it must not touch the catalog.
    var headerFields: (@Sendable () throws -> [UInt8]?)?
    /// A field provider the next commit uses instead, and keeps from then on: a
    /// credential commit, whose rows and fields change together (docs/FORMAT.md §9.7).
    var nextHeaderFields: (@Sendable () throws -> [UInt8]?)?
    /// The writer's floor on the bucket of the commit of the write in progress
    /// (docs/FORMAT.md §8.12); 0 for none.
    var nextMinimumBucket = 0
    /// Sealed pages written since the last commit, under `root.generation`.
    var staged: [Int: [UInt8]] = [:]
    /// The file's size in pages as SQLite sees it (after writes past the end, truncates).
    var stagedCount: Int
    /// Verified tag-tree nodes of the committed tree (tags only, nothing secret).
    var uppers: [Int: TagNode] = [:]
    var leaves: [Int: TagNode] = [:]
    /// Leaves kept at most (4 KiB each); the cache starts over when full.
    static let leafCacheLimit = 2048

    /// Set by a failed write, truncate or commit; never cleared.
    var broken = false
    /// The error of the last failed VFS call, for the owner to throw instead of SQLite's
    /// generic I/O error.
    var lastError: Error?
    /// Whether SQLite has the file open (at most one connection may).
    var isOpen = false
    /// A page-sized scratch buffer for partial reads, zeroed after each use.
    let scratch = SecureBytes(count: PagesFormat.pageSize)

    /// Seals a generation may make before the next commit starts a new one; tests lower it.
    package var sealBudget = PagesFormat.sealBudget
    /// Store commits made, and blocks per commit, for tests and measurements.
    package private(set) var commitSizes: [Int] = []
    /// How often SQLite called xSync.
    package private(set) var syncCalls = 0

    init(store: PageStore, keys: PageKeys, prefix: [UInt8], root: CatalogRoot, random: RandomSource) {
        self.store = store
        self.keys = keys
        self.prefix = prefix
        self.root = root
        self.random = random
        stagedCount = root.pageCount
    }

    /// The committed root, for tests.
    package var committedRoot: CatalogRoot { lock.withLock { root } }

    /// Takes the error of the last failed call, clearing it.
    func takeLastError() -> Error? {
        lock.withLock {
            defer { lastError = nil }
            return lastError
        }
    }

    /// Runs a VFS call under the lock, recording its error; a failure on the write path
    /// breaks the file and drops what was staged.
    func vfsCall(breaksOnFailure: Bool, _ body: () throws -> Int32) -> Int32 {
        lock.withLock {
            guard !broken else {
                // Keep the failure that broke the file: SQLite's rollback calls come after it.
                if lastError == nil { lastError = PagesError.broken }
                return Int32(OBSCURA_PAGE_ERROR)
            }
            do {
                return try body()
            } catch {
                lastError = error
                if breaksOnFailure {
                    broken = true
                    staged = [:]
                }
                return Int32(OBSCURA_PAGE_ERROR)
            }
        }
    }

    // MARK: - Reads

    /// Fills `buffer` from byte `offset`; returns whether every byte existed (a short
    /// read zero-fills the rest, as SQLite requires).
    func read(into buffer: UnsafeMutableRawBufferPointer, offset: Int) throws -> Bool {
        let size = PagesFormat.pageSize
        var done = 0
        while done < buffer.count {
            let position = offset + done
            let k = position / size + 1
            let within = position % size
            let n = min(size - within, buffer.count - done)
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + n)])
            if k > stagedCount {
                UnsafeMutableRawBufferPointer(rebasing: buffer[done...]).initializeMemory(as: UInt8.self, repeating: 0)
                return false
            }
            if n == size {
                try readPage(k, into: target)
            } else {
                // SQLite reads parts of page 1 (its 100-byte header); open the whole page
                // into locked scratch memory and copy the part out.
                try scratch.withUnsafeMutableBytes { page in
                    defer { secureZero(page.baseAddress!, page.count) }
                    try readPage(k, into: page)
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: page[within..<(within + n)]))
                }
            }
            done += n
        }
        return true
    }

    /// Opens page `k` (1 ≤ k ≤ stagedCount) into a 4096-byte buffer.
    func readPage(_ k: Int, into output: UnsafeMutableRawBufferPointer) throws {
        let g = root.generation
        if let sealed = staged[k] {
            try PageCodec.open(sealed, page: k, expectedTag: nil, vaultID: root.vaultID, generation: g,
                               key: keys.page(g), into: output)
        } else if k > root.pageCount {
            // Past the committed end and not written yet: SQLite's own zero page.
            output.initializeMemory(as: UInt8.self, repeating: 0)
        } else {
            let n = PageLayout.leafIndex(ofPage: k)
            let tag = try leaf(n).tags[(k - 1) % PagesFormat.tagsPerNode][...]
            let sealed = try store.readBlock(PageLayout.page(k))
            try PageCodec.open(sealed, page: k, expectedTag: tag, vaultID: root.vaultID, generation: g,
                               key: keys.page(g), into: output)
        }
    }

    /// Upper node `m` of the committed tree, verified against the root.
    func upper(_ m: Int) throws -> TagNode {
        if let node = uppers[m] { return node }
        let leafCount = PageLayout.leafCount(pages: root.pageCount)
        let children = min(PagesFormat.tagsPerNode, leafCount - m * PagesFormat.tagsPerNode)
        let node = try TagNode.open(
            try store.readBlock(PageLayout.upper(m)), level: .upper, index: m, children: children,
            expectedTag: root.upperTags[m][...], vaultID: root.vaultID, generation: root.generation,
            key: keys.page(root.generation))
        uppers[m] = node
        return node
    }

    /// Leaf `n` of the committed tree, verified against its upper node.
    func leaf(_ n: Int) throws -> TagNode {
        if let node = leaves[n] { return node }
        let t = PagesFormat.tagsPerNode
        let tag = try upper(PageLayout.upperIndex(ofLeaf: n)).tags[n % t][...]
        let children = min(t, root.pageCount - n * t)
        let node = try TagNode.open(
            try store.readBlock(PageLayout.leaf(n)), level: .leaf, index: n, children: children,
            expectedTag: tag, vaultID: root.vaultID, generation: root.generation, key: keys.page(root.generation))
        if leaves.count >= Self.leafCacheLimit { leaves.removeAll(keepingCapacity: true) }
        leaves[n] = node
        return node
    }

    // MARK: - Writes
    //
    // write, truncate and sync run under `lock` when SQLite calls them (PageVFS's
    // `vfsCall`); tests that drive a file without SQLite call them from one thread.

    /// Seals and stages one whole page written at `offset`.
    package func write(_ buffer: UnsafeRawBufferPointer, offset: Int) throws {
        let size = PagesFormat.pageSize
        guard buffer.count == size, offset % size == 0 else {
            throw PagesError.unsupported("a write of \(buffer.count) bytes at offset \(offset)")
        }
        let k = offset / size + 1
        guard k <= PagesFormat.maxPages else { throw PagesError.tooLarge(pages: k) }
        staged[k] = try PageCodec.seal(
            buffer, page: k, vaultID: root.vaultID, generation: root.generation,
            key: keys.page(root.generation), random: random)
        stagedCount = max(stagedCount, k)
    }

    /// Sets the file's size; pages past it are dropped from the stage.
    ///
    /// SQLite shrinks the file after the sync that ends a commit (VACUUM, auto-vacuum),
    /// with no sync after it: a shrink that finds nothing staged belongs to a transaction
    /// already committed, so it is committed at once (header, last leaf and upper) rather
    /// than left for a later commit that may never come.
    package func truncate(to size: Int) throws {
        guard size >= 0, size % PagesFormat.pageSize == 0 else {
            throw PagesError.unsupported("a truncate to \(size) bytes")
        }
        stagedCount = size / PagesFormat.pageSize
        staged = staged.filter { $0.key <= stagedCount }
        if staged.isEmpty, stagedCount < root.pageCount {
            try commitStaged()
        }
    }

    /// Makes everything staged durable in one store commit.
    package func sync() throws {
        syncCalls += 1
        try commitStaged()
    }

    func recordCommit(blocks: Int) { commitSizes.append(blocks) }
}

extension PagedFile {
    /// Page `k` as SQLite would read it, verified, for tests.
    package func plaintextPage(_ k: Int) throws -> [UInt8] {
        try lock.withLock {
            var page = [UInt8](repeating: 0, count: PagesFormat.pageSize)
            try page.withUnsafeMutableBytes { try readPage(k, into: $0) }
            return page
        }
    }
}

extension PagedFile {
    /// A new, empty file over `store` without SQLite, for tests that write pages directly
    /// (a tree of more than one upper node costs too much through SQL).
    package static func empty(store: PageStore, mek: SecureBytes, prefix: [UInt8], random: RandomSource) throws -> PagedFile {
        let root = CatalogRoot(
            vaultID: random.bytes(PagesFormat.vaultIDSize), sequence: 0, generation: 1, seals: 0,
            pageCount: 0, upperTags: [])
        return PagedFile(store: store, keys: try PageKeys(mek: mek), prefix: prefix, root: root, random: random)
    }

    /// Opens a file from a header block without SQLite, for the same tests.
    package static func open(store: PageStore, mek: SecureBytes, headerBlock: [UInt8], random: RandomSource) throws -> PagedFile {
        let keys = try PageKeys(mek: mek)
        let (prefix, root) = try CatalogRoot.openHeader(headerBlock, rootKey: keys.root)
        return PagedFile(store: store, keys: keys, prefix: prefix, root: root, random: random)
    }
}
