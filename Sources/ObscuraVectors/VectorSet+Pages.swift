import Foundation
import GRDB
import ObscuraCrypto
import ObscuraKeys
import ObscuraKit
import ObscuraPages
import ObscuraStore

extension VectorSet {
    // MARK: Paged catalog (§9) in a container of inner format 2 (§8.12)

    /// The password the catalog's header prefix wraps the MEK under.
    static let pagesPassword = "pages pw"

    /// `testdata/pages/`: `pages.json` and the two slot files of a container of inner
    /// format 2 whose first slot holds a paged catalog (docs/FORMAT.md §5, §8.12, §9).
    /// The JSON gives the catalog keys of a fixed MEK, logical ids, the header prefix
    /// and its password, one sealed page, leaf, upper node and header block of the
    /// catalog, the blocks the last commit replaced (for rollback cases), and the plan
    /// of that commit.
    static func pagesVectors() throws -> [String: [UInt8]] {
        let seed = "obscura pages vectors v1"
        let random = SeededRandom(seed: seed)
        let mek = SecureBytes(randomCount: 32, using: random)
        let keys = try PageKeys(mek: mek)
        let prefix = try pagedHeaderPrefix(
            password: SecureBytes(copying: Array(pagesPassword.utf8)), iterations: iterations, mek: mek, using: random)

        // The database: a few rows, one of them long enough for overflow pages.
        let database = try VectorDatabase()
        try database.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, body BLOB NOT NULL)")
        try database.execute(
            "INSERT INTO item(id, name, body) VALUES (1, 'beach.jpg', ?), (2, 'notes.txt', ?), (3, 'scan.pdf', ?)",
            [Data(random.bytes(300)), Data(random.bytes(40)), Data(random.bytes(9000))])
        let firstImage = try database.image()
        try database.execute("UPDATE item SET name = 'renamed.txt' WHERE id = 2")
        let secondImage = try database.image()

        let vectorContainer = try PagedVectorContainer(seed: seed + " container")
        let store = vectorContainer.store()
        let file = try PagedFile.empty(store: store, mek: mek, prefix: prefix, random: random)
        try commitPages(of: firstImage, over: [], to: file)
        let pageCount = firstImage.count / PagesFormat.pageSize
        let first = try vectorContainer.blocks(PageLayout.logicalCount(pages: pageCount))
        let plan = try vectorContainer.planOf { try commitPages(of: secondImage, over: firstImage, to: file) }
        guard secondImage.count == firstImage.count else { throw PagesError.unsupported("the vector's update changed P") }
        let last = try vectorContainer.blocks(PageLayout.logicalCount(pages: pageCount))
        let root = file.committedRoot

        var out = [String: [UInt8]]()
        for (name, bytes) in try vectorContainer.slotFiles(resealingWith: SeededRandom(seed: seed + " superblocks")) {
            out["pages/" + name] = bytes
        }
        let changedPages = (1...pageCount).filter { first[PageLayout.page($0)] != last[PageLayout.page($0)] }
        let samplePage = changedPages[0]

        /// Node `index` of `level`, opened against the tag its parent records.
        func nodeJSON(_ level: TagNode.Level, _ index: Int, children: Int, tag: [UInt8]) throws -> (TagNode, JSONText) {
            let id = level == .leaf ? PageLayout.leaf(index) : PageLayout.upper(index)
            let sealed = last[id]!
            let node = try TagNode.open(
                sealed, level: level, index: index, children: children, expectedTag: tag[...], vaultID: root.vaultID,
                generation: root.generation, key: keys.page(root.generation))
            return (node, .object([
                ("index", .int(index)), ("logical_id", .int(id)),
                ("associated_data", .string(hex(TagNode.associatedData(
                    vaultID: root.vaultID, level: level, index: index, generation: root.generation)))),
                ("tags", .array(node.tags.prefix(children).map { .string(hex($0)) })),
                ("sealed", .string(hex(sealed))),
            ]))
        }
        let (upperNode, upperJSON) = try nodeJSON(.upper, 0, children: 1, tag: root.upperTags[0])
        let (_, leafJSON) = try nodeJSON(.leaf, 0, children: pageCount, tag: upperNode.tags[0])
        var page = [UInt8](repeating: 0, count: PagesFormat.pageSize)
        page.replaceSubrange(0..<PagesFormat.usableBytes, with: secondImage[((samplePage - 1) * PagesFormat.pageSize)...].prefix(PagesFormat.usableBytes))
        let header = last[PageLayout.header]!
        let (_, opened) = try CatalogRoot.openHeader(header, rootKey: keys.root)
        // The same root re-sealed in layout B (§9.5, §9.8), from a stream of its own so that
        // every other byte of this vector stays as it was.
        let layoutB = SeededRandom(seed: seed + " layout b")
        // Field 1 seals the MEK for a passkey whose PRF output is `prf` (§9.8), in the
        // container's first slot; fields 0, 2 and 3 are free (random), as a vault with one
        // passkey enrolled in its second row writes them.
        let prf = SecureBytes(randomCount: 32, using: layoutB)
        let directoryID = vectorContainer.container.state.directoryID
        let slotID = vectorContainer.vaultSlot.bytes
        let wrapKey = PasskeyFields.wrapKey(prf: prf, directoryID: directoryID, slotID: slotID)
        var fields = [UInt8]()
        for index in 0..<PasskeyFormat.fieldCount {
            fields += index == 1
                ? try PasskeyFields.seal(mek: mek, key: wrapKey, directoryID: directoryID, slotID: slotID, index: index, using: layoutB)
                : layoutB.bytes(PasskeyFormat.fieldSize)
        }
        var rootB = opened
        rootB.layout = .b
        let headerB = try rootB.sealHeader(prefix: prefix, fields: fields, rootKey: keys.root, random: layoutB)
        let catalog = JSONText.object([
            ("comment", .string(
                "the paged catalog in the first slot of container (§9): its SQLite database has P pages, "
                    + "database_sha256 is SHA-256 of the P·4096 bytes, and query gives rows")),
            ("vault_id", .string(hex(root.vaultID))),
            ("generation", .int(Int(root.generation))),
            ("pages", .int(pageCount)),
            ("database_sha256", .string(hex(SHA256Digest.hash(secondImage)))),
            ("query", .string(VectorDatabase.query)),
            ("rows", .array(try database.rows().map { .array([.int($0.0), .string($0.1), .int($0.2)]) })),
            ("header", .object([
                ("comment", .string("logical block 0 (§9.5): prefix ‖ Seal(K_root, root, AD = prefix)")),
                ("sequence", .int(Int(opened.sequence))),
                ("seals", .int(Int(opened.seals))),
                ("upper_tags", .array(opened.upperTags.map { .string(hex($0)) })),
                ("root", .string(hex(opened.encoded()))),
                ("block", .string(hex(header))),
            ])),
            ("header_layout_b", .object([
                ("comment", .string(
                    "the same root in layout B (§9.5): prefix ‖ fields (240 bytes) ‖ Seal(K_root, root B, "
                        + "AD = prefix ‖ fields); a reader tries B first, then A. Field 1 seals the MEK for the "
                        + "PRF output prf, in the slot slot_id of the directory directory_id (§9.8); the others are free")),
                ("prf", .string(hex(prf.withUnsafeBytes { Array($0) }))),
                ("directory_id", .string(hex(directoryID))),
                ("slot_id", .string(hex(slotID))),
                ("field", .int(1)),
                ("fields", .string(hex(fields))),
                ("root", .string(hex(rootB.encoded()))),
                ("block", .string(hex(headerB))),
            ])),
            ("page", .object([
                ("comment", .string("sealed page `number` (§9.2): plaintext_sha256 is of its 4096 bytes, the last 56 zero")),
                ("number", .int(samplePage)), ("logical_id", .int(PageLayout.page(samplePage))),
                ("associated_data", .string(hex(PageCodec.associatedData(
                    vaultID: root.vaultID, page: samplePage, generation: root.generation)))),
                ("plaintext_sha256", .string(hex(SHA256Digest.hash(page)))),
                ("sealed", .string(hex(last[PageLayout.page(samplePage)]!))),
            ])),
            ("leaf", leafJSON),
            ("upper", upperJSON),
            ("previous", .object([
                ("comment", .string(
                    "the commit before: its header block and the pages the last commit replaced, each valid "
                        + "alone, refused beside the newer blocks")),
                ("header", .string(hex(first[PageLayout.header]!))),
                ("pages", .array(changedPages.map { .object([("number", .int($0)), ("sealed", .string(hex(first[PageLayout.page($0)]!)))]) })),
            ])),
        ])

        let state = vectorContainer.container.state
        let json = JSONText.object([
            ("comment", .string(
                "docs/FORMAT.md §9 and §8.12: a paged catalog in a container of inner format 2, and the pieces "
                    + "it is made of. Every random byte comes from SeededRandom (FORMAT.md §5)")),
            ("mek", .string(hex(mek.withUnsafeBytes { Array($0) }))),
            ("keys", .object([
                ("comment", .string("HKDF-SHA256 of mek with the salt and labels of §9.1")),
                ("root", .string(hex(keys.root.withUnsafeBytes { Array($0) }))),
                ("page_1", .string(hex(keys.page(1).withUnsafeBytes { Array($0) }))),
                ("page_2", .string(hex(keys.page(2).withUnsafeBytes { Array($0) }))),
            ])),
            ("logical_ids", .array(logicalIDs())),
            ("header_prefix", .object([
                ("comment", .string("§9.5: bytes [0, 136) of block 0; password unwraps mek with PBKDF2 (§2)")),
                ("password", .string(pagesPassword)),
                ("iterations", .int(iterations)),
                ("prefix", .string(hex(prefix))),
            ])),
            ("catalog", catalog),
            ("container", .object([
                ("comment", .string(
                    "the slot files: created (k = 1), switched to inner format 2 (k = 2), then the catalog's two "
                        + "commits (k = 3, 4); superblock k carries commit time 1,700,000,000,000,000,000 + k")),
                ("outer_key", .string(hex(vectorContainer.outer.withUnsafeBytes { Array($0) }))),
                ("file", .string(vectorContainer.vaultSlot.fileName)),
                ("other_file", .string(vectorContainer.otherSlot.fileName)),
                ("sequence", .int(Int(state.sequence))),
                ("blocks", .int(Int(state.blockCount))),
                ("logical_blocks", .int(Int(state.logicalCount))),
            ])),
            ("block_commit", planJSON(plan)),
        ])
        out["pages/pages.json"] = Array((json.rendered() + "\n").utf8)
        return out
    }

    /// The §9.5 header prefix of `mek` under `password`: made by the vaults' own code
    /// (``SlotCodec``), so the vector checks that code against the format.
    static func pagedHeaderPrefix(
        password: SecureBytes, iterations: Int, mek: SecureBytes, using random: RandomSource
    ) throws -> [UInt8] {
        try SlotCodec.wrap(
            key: mek, password: password, kdf: .pbkdf2(iterations: iterations), versions: [SlotFormat.pagedVersion], using: random
        )[0].encoded()
    }

    /// Writes the pages of `image` that differ from `previous` through `file`, then
    /// syncs: one catalog commit, as SQLite's writes and sync would make it.
    private static func commitPages(of image: [UInt8], over previous: [UInt8], to file: PagedFile) throws {
        let size = PagesFormat.pageSize
        for start in stride(from: 0, to: image.count, by: size) where previous.count < start + size
            || image[start..<(start + size)] != previous[start..<(start + size)] {
            try image[start..<(start + size)].withUnsafeBytes { try file.write($0, offset: start) }
        }
        try file.sync()
    }

    /// §9.4 for a few uppers, leaves and pages, the edges of each level included.
    private static func logicalIDs() -> [JSONText] {
        let t = PagesFormat.tagsPerNode
        let rows: [(String, Int, Int)] = [[0, 1, 239].map { ("upper", $0, PageLayout.upper($0)) },
            [0, 1, t - 1, t, t + 1, 240 * t - 1].map { ("leaf", $0, PageLayout.leaf($0)) },
            [1, 2, t, t + 1, t * t, t * t + 1, PagesFormat.maxPages].map { ("page", $0, PageLayout.page($0)) }]
            .flatMap { $0 }
        return rows.map { .object([("kind", .string($0.0)), ("index", .int($0.1)), ("id", .int($0.2))]) }
    }

    private static func planJSON(_ plan: PagedVectorContainer.Plan) -> JSONText {
        .object([
            ("comment", .string(
                "the last commit's plan (§8.12), the same in both slots: changed logical ids J, cover ids, map "
                    + "nodes D with their positions, each rewritten block's position, filler, and live(S)")),
            ("sequence", .int(plan.sequence)),
            ("bucket", .int(plan.bucket)),
            ("changed", .array(plan.changed.map { .int($0) })),
            ("cover", .array(plan.cover.map { .int($0) })),
            ("nodes", .array(plan.nodes.map { .array([.int($0.level), .int($0.index), .int($0.position)]) })),
            ("data_positions", .array(plan.dataPositions.map { .array([.int($0.id), .int($0.position)]) })),
            ("filler", .array(plan.filler.map { .int($0) })),
            ("live_before", .array(plan.liveBefore.map { .int($0) })),
        ])
    }
}
