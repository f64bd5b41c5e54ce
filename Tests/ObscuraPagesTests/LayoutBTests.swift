import Foundation
import GRDB
import ObscuraCrypto
import Testing
@testable import ObscuraPages

/// Block 0's layout B (docs/FORMAT.md §9.5, §9.8): the passkey fields between the prefix
/// and a smaller root, written by every commit while the vault layer supplies them, and
/// read in the order B, then A.
@Suite struct LayoutBTests {
    /// A provider that draws 240 new bytes per commit and records what it drew.
    final class Fields: @unchecked Sendable {
        // @unchecked: called under the pager's lock; the test reads after the commits.
        var drawn: [[UInt8]] = []
        var layoutB = true
        func provider() -> @Sendable () throws -> [UInt8]? {
            { [self] in
                guard layoutB else { return nil }
                let bytes = SystemRandom().bytes(HeaderFormat.fieldsSize)
                drawn.append(bytes)
                return bytes
            }
        }
    }

    @Test func theSizesOfBothLayouts() {
        #expect(HeaderLayout.a.rootPlaintextSize == 3904 && HeaderLayout.a.upperTagCapacity == 240)
        #expect(HeaderLayout.b.rootPlaintextSize == 3664 && HeaderLayout.b.upperTagCapacity == 225)
        #expect(HeaderLayout.a.maxPages == PagesFormat.maxPages)
        #expect(HeaderLayout.b.maxPages == 14_288_400)
    }

    /// Every commit with a provider writes layout B with the fields it drew, in the clear
    /// after the prefix and covered by the root; without it, layout A again. Both reopen.
    @Test func commitsFollowTheProviderAndReopen() throws {
        let (store, catalog) = try Fixture.create()
        #expect(catalog.headerLayout == .a)
        let fields = Fields()
        catalog.setHeaderFields(fields.provider())
        try Fixture.fill(catalog, rows: 3)
        #expect(catalog.headerLayout == .b)
        #expect(Array(store.header[136..<376]) == fields.drawn.last)
        #expect(Array(store.header[0..<136]) == Fixture.prefix)
        let first = try #require(fields.drawn.last)
        try Fixture.fill(catalog, rows: 2, from: 3)
        // Every commit draws all the fields afresh.
        #expect(fields.drawn.count == 2 && fields.drawn[1] != first)
        let reopened = try Fixture.reopen(store)
        #expect(reopened.headerLayout == .b)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 5)
        try reopened.close()
        // Opened in layout B without the fields, a commit is refused: layout A would drop
        // them (PC1). Opened with a provider, it writes them.
        let blind = try Fixture.reopen(store)
        #expect(throws: (any Error).self) { try Fixture.fill(blind, rows: 1, from: 100) }
        #expect(Array(store.header[136..<376]) == fields.drawn.last)
        try? blind.close()
        let informed = try PagedCatalog.open(store: store, mek: Fixture.mek, headerBlock: store.header, headerFields: fields.provider())
        try Fixture.fill(informed, rows: 1, from: 100)
        #expect(informed.headerLayout == .b && fields.drawn.count == 3)
        #expect(Array(store.header[136..<376]) == fields.drawn.last)
        try informed.close()
        try catalog.close()
        // Back to layout A: the provider's explicit nil.
        fields.layoutB = false
        let leaving = try PagedCatalog.open(store: store, mek: Fixture.mek, headerBlock: store.header, headerFields: fields.provider())
        try Fixture.fill(leaving, rows: 1, from: 5)
        #expect(leaving.headerLayout == .a)
        try leaving.close()
        let back = try Fixture.reopen(store)
        #expect(back.headerLayout == .a)
        #expect(try back.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 7)
        try back.close()
    }

    /// The root covers the fields: a flipped field byte leaves a root that opens under
    /// neither parse, which is damage, not another root.
    @Test func aFlippedFieldByteDamagesTheRoot() throws {
        let (store, catalog) = try Fixture.create()
        catalog.setHeaderFields(Fields().provider())
        try Fixture.fill(catalog, rows: 1)
        try catalog.close()
        let keys = try PageKeys(mek: Fixture.mek)
        for offset in 136..<376 {
            var header = store.header
            header[offset] ^= 0x01
            #expect(throws: PagesError.self) { try CatalogRoot.openHeader(header, rootKey: keys.root) }
        }
        #expect(try CatalogRoot.openHeader(store.header, rootKey: keys.root).root.layout == .b)
    }

    /// A layout-A block and a layout-B block of the same root open as what they are.
    @Test func theOrderIsBThenA() throws {
        let keys = try PageKeys(mek: Fixture.mek)
        var root = CatalogRoot(vaultID: [UInt8](repeating: 3, count: 16), sequence: 5, generation: 1, seals: 9,
                               pageCount: 1, upperTags: [[UInt8](repeating: 0xAB, count: 16)])
        let a = try root.sealHeader(prefix: Fixture.prefix, rootKey: keys.root, random: SystemRandom())
        root.layout = .b
        let b = try root.sealHeader(prefix: Fixture.prefix, fields: [UInt8](repeating: 7, count: 240), rootKey: keys.root, random: SystemRandom())
        #expect(try CatalogRoot.openHeader(a, rootKey: keys.root).root.layout == .a)
        #expect(try CatalogRoot.openHeader(b, rootKey: keys.root).root == root)
        // The wrong number of field bytes for a layout is refused, not sealed.
        #expect(throws: PagesError.self) { try root.sealHeader(prefix: Fixture.prefix, rootKey: keys.root, random: SystemRandom()) }
    }

    /// A root B may not claim more pages than its 225 upper tags cover.
    @Test func aLayoutBRootPastItsBoundIsDamaged() throws {
        var plaintext = CatalogRoot(vaultID: [UInt8](repeating: 3, count: 16), sequence: 1, generation: 1, seals: 1,
                                    pageCount: 1, upperTags: [[UInt8](repeating: 1, count: 16)], layout: .b).encoded()
        #expect(plaintext.count == 3664)
        let tooMany = UInt32(HeaderLayout.b.maxPages + 1).bigEndian
        withUnsafeBytes(of: tooMany) { plaintext.replaceSubrange(36..<40, with: $0) }
        #expect(throws: PagesError.self) { try CatalogRoot.decode(plaintext, layout: .b) }
        #expect(throws: PagesError.self) { try CatalogRoot.decode(plaintext, layout: .a) }
    }
}
