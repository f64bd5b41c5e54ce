import Foundation
import GRDB
import ObscuraCrypto
import ObscuraKeys
import ObscuraPages
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// The paged-catalog vector (testdata/pages, docs/FORMAT.md §5, §8.12, §9) through the
/// Swift readers: the container opened with its outer key, the catalog with the MEK its
/// header's password unwraps, and the tampered cases tests/interop/test_pages.py makes,
/// each refused here too.
@Suite struct PagesVectorTests {
    static let folder = VectorTests.root + "/pages"
    // nonisolated(unsafe): never written after it is loaded.
    nonisolated(unsafe) static let vector = try! JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: folder + "/pages.json"))) as! [String: Any]
    static var catalogFields: [String: Any] { vector["catalog"] as! [String: Any] }
    static var pageCount: Int { catalogFields["pages"] as! Int }

    static func object(_ path: String...) -> [String: Any] {
        path.reduce(vector) { $0[$1] as! [String: Any] }
    }

    static func bytes(_ hex: Any?) -> [UInt8] { VectorTests.unhex(hex as? String) }

    /// The catalog's logical blocks, read from a copy of the slot files with the outer key.
    static func blocks() throws -> [Int: [UInt8]] {
        let fields = object("container")
        let directory = NSTemporaryDirectory() + "pages-vector-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in [fields["file"] as! String, fields["other_file"] as! String] {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: directory + "/" + name)
        }
        let container = try SlotContainer.open(
            files: DiskSlotFiles(path: directory), key: try OuterKey(SecureBytes(copying: bytes(fields["outer_key"]))))
        #expect(container.state.innerFormat == .blocks && Int(container.state.sequence) == fields["sequence"] as! Int)
        let slot = SlotID(fileName: fields["file"] as! String)!
        return try (0...PageLayout.page(pageCount)).reduce(into: [:]) { $0[$1] = try container.readBlock(slot, $1) }
    }

    /// The MEK the header prefix wraps under the vector's password (§9.5).
    static func mek(prefix: [UInt8]) throws -> SecureBytes {
        let password = SecureBytes(copying: Array((object("header_prefix")["password"] as! String).utf8))
        #expect(SHA256Digest.hash(prefix[0..<104]) == Array(prefix[104..<136]))
        let kek = try PasswordKDF.deriveKey(
            password: password, salt: prefix[12..<44], iterations: Int(prefix.readBigEndian(UInt32.self, at: 8)))
        return SecureBytes(copying: try AESGCM.open(prefix[44..<104], key: kek, authenticating: prefix[0..<44]))
    }

    /// Opens the catalog over `blocks` and reads every page down the tree, then the rows.
    static func read(_ blocks: [Int: [UInt8]], mek: SecureBytes) throws -> [[String]] {
        let store = MemoryPageStore()
        store.blocks = blocks
        let catalog = try PagedCatalog.open(store: store, mek: mek, headerBlock: blocks[0]!)
        defer { try? catalog.close() }
        for k in 1...catalog.backend.committedRoot.pageCount { _ = try catalog.backend.plaintextPage(k) }
        return try catalog.read { db in
            try Row.fetchAll(db, sql: catalogFields["query"] as! String).map { row in
                [String(row[0] as Int64), row[1] as String, String(row[2] as Int64)]
            }
        }
    }

    static var expectedRows: [[String]] {
        (catalogFields["rows"] as! [[Any]]).map { $0.map { "\($0)" } }
    }

    /// The layout-B header (§9.5): opened B first, the same root, the fields as they are;
    /// a catalog whose block 0 is this one reads the same rows.
    @Test func theLayoutBHeaderOpensFirstAsTheSameRoot() throws {
        let b = Self.object("catalog", "header_layout_b")
        let block = Self.bytes(b["block"])
        let mek = try Self.mek(prefix: Array(block[0..<136]))
        let keys = try PageKeys(mek: mek)
        let (prefix, root) = try CatalogRoot.openHeader(block, rootKey: keys.root)
        let (_, rootA) = try CatalogRoot.openHeader(Self.bytes(Self.object("catalog", "header")["block"]), rootKey: keys.root)
        #expect(root.layout == HeaderLayout.b && rootA.layout == HeaderLayout.a)
        #expect(prefix == Array(block[0..<136]) && Array(block[136..<376]) == Self.bytes(b["fields"]))
        #expect(root.encoded() == Self.bytes(b["root"]))
        var withB = rootA
        withB.layout = HeaderLayout.b
        #expect(root == withB)
        var blocks = try Self.blocks()
        let rowsA = try Self.read(blocks, mek: mek)
        blocks[0] = block
        #expect(try Self.read(blocks, mek: mek) == rowsA)
        // Field 1 seals the MEK for the vector's PRF output (§9.8): the sweep finds it there.
        let match = PasskeySweep.run(
            prf: SecureBytes(copying: Self.bytes(b["prf"])), directoryID: Self.bytes(b["directory_id"]),
            slots: [.init(slotID: Self.bytes(b["slot_id"]), fields: Array(block[136..<376]))])
        #expect(match?.field == b["field"] as? Int && match?.mek == mek)
    }

    @Test func keysIdsAndTheCatalogOpen() throws {
        let mek = SecureBytes(copying: Self.bytes(Self.vector["mek"]))
        let keys = try PageKeys(mek: mek)
        let expected = Self.object("keys")
        #expect(keys.root.withUnsafeBytes { Array($0) } == Self.bytes(expected["root"]))
        #expect(keys.page(1).withUnsafeBytes { Array($0) } == Self.bytes(expected["page_1"]))
        #expect(keys.page(2).withUnsafeBytes { Array($0) } == Self.bytes(expected["page_2"]))
        for row in Self.vector["logical_ids"] as! [[String: Any]] {
            let index = row["index"] as! Int
            let id = switch row["kind"] as! String {
            case "upper": PageLayout.upper(index)
            case "leaf": PageLayout.leaf(index)
            default: PageLayout.page(index)
            }
            #expect(id == row["id"] as! Int, "\(row)")
        }
        let blocks = try Self.blocks()
        let prefix = Array(blocks[0]![0..<HeaderFormat.prefixSize])
        #expect(prefix == Self.bytes(Self.object("header_prefix")["prefix"]))
        #expect(try Self.mek(prefix: prefix).withUnsafeBytes { Array($0) } == Self.bytes(Self.vector["mek"]))
        #expect(try Self.read(blocks, mek: mek) == Self.expectedRows)
    }

    @Test func tamperedCatalogsAreRefused() throws {
        let blocks = try Self.blocks()
        let mek = SecureBytes(copying: Self.bytes(Self.vector["mek"]))
        func refused(_ edited: [Int: [UInt8]], _ what: String) {
            #expect(throws: PagesError.self, "\(what)") { try Self.read(edited, mek: mek) }
        }
        for j in blocks.keys {
            for offset in [0, 12, 2000, PagesFormat.blockPayload - 1] {
                var edited = blocks
                let at = j == 0 && offset < HeaderFormat.prefixSize ? offset + HeaderFormat.prefixSize : offset
                edited[j]![at] ^= 1
                refused(edited, "block \(j) byte \(at)")
            }
        }
        var swapped = blocks
        swapped[PageLayout.page(1)] = blocks[PageLayout.page(Self.pageCount)]
        swapped[PageLayout.page(Self.pageCount)] = blocks[PageLayout.page(1)]
        refused(swapped, "pages swapped")

        let previous = Self.object("catalog", "previous")
        for page in previous["pages"] as! [[String: Any]] {
            var older = blocks
            older[PageLayout.page(page["number"] as! Int)] = Self.bytes(page["sealed"])
            refused(older, "page \(page["number"]!) put back")
        }
        var rolledBack = blocks
        rolledBack[0] = Self.bytes(previous["header"])
        // The older root opens alone: it is refused only by the tree it no longer matches.
        #expect(try CatalogRoot.openHeader(rolledBack[0]!, rootKey: PageKeys(mek: mek).root).root.sequence
            == (Self.object("catalog", "header")["sequence"] as! Int) - 1)
        refused(rolledBack, "root rolled back")
        #expect(throws: PagesError.self) { try Self.read(blocks, mek: SecureBytes(count: 32)) }
    }
}
