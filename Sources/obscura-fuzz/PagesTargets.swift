// Targets for the paged catalog's decoders (docs/FORMAT.md §9): the header and its root,
// tag-tree nodes and pages, as a slot's logical blocks a holder of the outer key can
// write, read under the catalog's key.
import Foundation
import GRDB
import ObscuraCrypto
import ObscuraPages

/// The header prefix of the fuzzed catalogs: opaque to the pager (§9.5).
let pagesPrefix = [UInt8](repeating: 0x5A, count: HeaderFormat.prefixSize)

/// A small catalog under ``fuzzKey``: a table with a row long enough for overflow pages,
/// so that its tree has an upper node, a leaf and several pages. Made once per process.
nonisolated(unsafe) var pagesBase: [Int: [UInt8]] = [:]

func makePagesBase() throws {
    guard pagesBase.isEmpty else { return }
    let store = MemoryPageStore()
    let catalog = try PagedCatalog.create(
        store: store, mek: fuzzKey, headerPrefix: pagesPrefix, random: SeededRandom(seed: "obscura fuzz pages"))
    try catalog.write { db in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        try db.execute(sql: "INSERT INTO t(body) VALUES (zeroblob(9000)), (x'01'), (zeroblob(300))")
    }
    try catalog.close()
    pagesBase = store.blocks
}

/// The base catalog's blocks as one input: block 0, 1, 2, … of 4068 bytes each.
func pagesSeeds() throws -> [[UInt8]] {
    try makePagesBase()
    return [pagesBase.keys.sorted().flatMap { pagesBase[$0]! }]
}

/// Sealed bytes: the input is a slot's logical blocks 0, 1, 2, … (4068 bytes each, the
/// last one possibly short), opened under ``fuzzKey`` as the pager reads them: the root,
/// then every page down the tree. Past the seed's tags every change is a tag mismatch or
/// a failed open, which is what these paths must survive.
let pagesTarget = FuzzTarget("pages", setUp: makePagesBase, seeds: pagesSeeds) { bytes in
    let size = PagesFormat.blockPayload
    let store = MemoryPageStore()
    store.blocks = stride(from: 0, to: bytes.count, by: size).reduce(into: [:]) { blocks, start in
        blocks[start / size] = Array(bytes[start..<min(start + size, bytes.count)])
    }
    guard let header = store.blocks[0],
          let file = try? PagedFile.open(store: store, mek: fuzzKey, headerBlock: header, random: SystemRandom())
    else { return }
    readPages(file, limit: store.blocks.count)
}

/// Plaintext: the input's first byte picks a root, an upper node, a leaf or a page of the
/// base catalog, the second a page; the rest is that block's plaintext, which the harness
/// seals properly and chains into the tree (re-sealing the nodes and root above it), so
/// that the decoders' structural checks run on fuzzed bytes. A page goes through SQLite.
let pagesPlainTarget = FuzzTarget("pages-plain", setUp: makePagesBase, seeds: pagesPlainSeeds) { bytes in
    guard bytes.count >= 2 else { return }
    let plaintext = Array(bytes[2...])
    let keys = try! PageKeys(mek: fuzzKey)
    let (_, base) = try! CatalogRoot.openHeader(pagesBase[0]!, rootKey: keys.root)
    let forger = TreeForger(keys: keys, root: base, blocks: pagesBase)
    switch bytes[0] % 4 {
    case 0:
        let root = forger.sealRoot(plaintext: sized(plaintext, HeaderFormat.rootPlaintextSize))
        guard let file = forger.open(header: root) else { return }
        // Whatever decodes must be exactly what was sealed (§9.5 leaves no field free).
        guard file.committedRoot.encoded() == sized(plaintext, HeaderFormat.rootPlaintextSize) else {
            fatalError("a root decoded to other bytes than were sealed")
        }
        readPages(file, limit: 64)
    case 1, 2:
        let level: TagNode.Level = bytes[0] % 4 == 1 ? .upper : .leaf
        let node = sized(plaintext, PagesFormat.nodePlaintextSize)
        let children = level == .upper ? 1 : base.pageCount
        if let decoded = TagNode.decode(node, children: children), decoded.encoded() != node {
            fatalError("a tag node decoded to other bytes than were sealed")
        }
        guard let file = forger.open(header: forger.replacing(level, plaintext: node)) else { return }
        readPages(file, limit: 64)
    default:
        let k = 1 + Int(bytes[1]) % base.pageCount
        let header = forger.replacingPage(k, plaintext: sized(plaintext, PagesFormat.usableBytes))
        queryForged(blocks: forger.blocks, header: header)
    }
}

/// One seed per kind: each block of the base catalog as its own plaintext.
func pagesPlainSeeds() throws -> [[UInt8]] {
    try makePagesBase()
    let keys = try PageKeys(mek: fuzzKey)
    let (_, root) = try CatalogRoot.openHeader(pagesBase[0]!, rootKey: keys.root)
    let g = root.generation
    let upper = try TagNode.open(
        pagesBase[PageLayout.upper(0)]!, level: .upper, index: 0, children: 1, expectedTag: root.upperTags[0][...],
        vaultID: root.vaultID, generation: g, key: keys.page(g))
    let leaf = try TagNode.open(
        pagesBase[PageLayout.leaf(0)]!, level: .leaf, index: 0, children: root.pageCount, expectedTag: upper.tags[0][...],
        vaultID: root.vaultID, generation: g, key: keys.page(g))
    var seeds = [[0, 0] + root.encoded(), [1, 0] + upper.encoded(), [2, 0] + leaf.encoded()]
    for k in 1...root.pageCount {
        var page = [UInt8](repeating: 0, count: PagesFormat.pageSize)
        try page.withUnsafeMutableBytes { output in
            try PageCodec.open(
                pagesBase[PageLayout.page(k)]!, page: k, expectedTag: leaf.tags[k - 1][...], vaultID: root.vaultID,
                generation: g, key: keys.page(g), into: output)
        }
        seeds.append([3, UInt8(k - 1)] + page.prefix(PagesFormat.usableBytes))
    }
    return seeds
}

/// `bytes` cut or zero-padded to `count`.
func sized(_ bytes: [UInt8], _ count: Int) -> [UInt8] {
    Array(bytes.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - bytes.count))
}

/// Reads pages 1 … min(P, limit) and page P through the tree: every one verifies or
/// throws; none may trap.
func readPages(_ file: PagedFile, limit: Int) {
    let pages = file.committedRoot.pageCount
    guard pages > 0 else { return }
    for k in Set(Array(1...min(pages, limit)) + [pages]).sorted() {
        _ = try? file.plaintextPage(k)
    }
}

/// Opens the forged catalog through SQLite and reads its table: SQLite's handling of a
/// page it finds corrupt, over the VFS's reads.
func queryForged(blocks: [Int: [UInt8]], header: [UInt8]) {
    let store = MemoryPageStore()
    store.blocks = blocks
    guard let catalog = try? PagedCatalog.open(store: store, mek: fuzzKey, headerBlock: header) else { return }
    _ = try? catalog.read { db in
        _ = try Row.fetchAll(db, sql: "SELECT id, length(body) FROM t")
        _ = try String.fetchAll(db, sql: "PRAGMA quick_check")
    }
    try? catalog.close()
}
