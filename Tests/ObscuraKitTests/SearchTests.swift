import Foundation
import GRDB
import ObscuraCrypto
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Search and filters (issue 17): the catalog's query, through the trigram index or row
/// by row, against the same filter worked out in Swift over every row.
@Suite struct SearchTests {
    static let names = ["IMG_0042.JPG", "img_0043.heic", "Beach day.jpg", "beach-2.mov", "Été à Lyon.png",
                        "100%_done.png", "quote\"d.jpg", "report.pdf", "b.jpg", "x"]
    static let places: [String?] = [nil, "Lyon, Auvergne-Rhône-Alpes, France", "Paris, Île-de-France, France",
                                     "Sydney, New South Wales, Australia"]

    /// A catalog of `count` rows drawn from the lists above, some in the trash.
    static func catalog(count: Int, seed: String, names: [String] = names) throws -> (Catalog, [ItemRecord]) {
        let catalog = try Catalog.empty()
        let random = SeededRandom(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.bytes(2).reduce(0) { $0 * 256 + Int($1) }) % values.count] }
        var rows = [ItemRecord]()
        for n in 0..<count {
            var row = ItemRecord(
                id: String(format: "%08x-0000-4000-8000-000000000000", n), kind: pick([.photo, .photo, .video, .file]),
                mediaId: UUID().uuidString.lowercased(), name: pick(names), mimeType: "image/jpeg", size: 1,
                takenAt: pick([nil, Double(pick(Array(0..<40)) * 1000)]), importedAt: Double(n), folderId: nil,
                favorite: pick([false, true]), contentHash: Data([1]))
            row.place = pick(places)
            if pick([false, false, false, true]) { row.deletedAt = Double(n) }
            rows.append(row)
        }
        try catalog.insert(rows)
        return (catalog, rows)
    }

    /// Every page of `filter` over the whole catalog, by cursor.
    static func allPages(_ catalog: Catalog, _ filter: Catalog.ListingFilter, limit: Int) throws -> (ids: [String], total: Int) {
        var ids = [String]()
        var position: (key: Double, id: String)?
        var total = -1
        while true {
            let (page, count) = try catalog.listing(.all(excluding: []), filter: filter, after: position, limit: limit)
            total = count
            ids += page.map(\.id)
            guard page.count == limit, let last = page.last else { return (ids, total) }
            position = (last.takenAt ?? last.importedAt, last.id)
        }
    }

    @Test(arguments: [
        ItemFilter(text: "img"), ItemFilter(text: "0042"), ItemFilter(text: "BEACH"), ItemFilter(text: "été"),
        ItemFilter(text: "lyon"), ItemFilter(text: "b."), ItemFilter(text: "x"), ItemFilter(text: "%_"),
        ItemFilter(text: "100%"), ItemFilter(text: "quote\"d"), ItemFilter(text: "\"d"), ItemFilter(text: "nothing here"),
        ItemFilter(place: "france"), ItemFilter(place: "ly"), ItemFilter(kind: .video), ItemFilter(favoritesOnly: true),
        ItemFilter(from: 10_000, before: 20_000), ItemFilter(kind: .photo, from: 5_000, text: "jpg"),
        ItemFilter(favoritesOnly: true, kind: .file, place: "Paris"), ItemFilter(),
    ])
    func theQueryFindsWhatSwiftFinds(_ filter: ItemFilter) throws {
        let (catalog, rows) = try Self.catalog(count: 400, seed: "search")
        let key = { (row: ItemRecord) in row.takenAt ?? row.importedAt }
        let expected = rows.filter { !$0.isTrashed && filter.keeps($0) }
            .sorted { key($0) != key($1) ? key($0) > key($1) : $0.id < $1.id }.map(\.id)
        let (ids, total) = try Self.allPages(catalog, filter.catalogFilter, limit: 7)
        #expect(ids == expected)
        #expect(total == expected.count)
    }

    /// A text most names hold is read by walking the gallery's index (the dense plan), a
    /// rare one from the search index: both give what Swift gives, with a kind, days, the
    /// top level, a folder and the trash's items left out.
    @Test(arguments: ["jpg", "IMG_0042", "beach", "day"])
    func denseAndSparseMatchesAgree(_ text: String) throws {
        // "jpg" is in 9 names of 10: the dense plan; the others are rare.
        let names = Array(repeating: "IMG_0042.jpg", count: 3) + ["IMG_1.jpg", "img_2.JPG", "Beach day.jpg", "x.jpg",
                                                                   "a.jpg", "b.jpg", "notes.txt"]
        let (catalog, rows) = try Self.catalog(count: 300, seed: "dense", names: names)
        let key = { (row: ItemRecord) in row.takenAt ?? row.importedAt }
        for filter in [ItemFilter(text: text), ItemFilter(kind: .photo, text: text), ItemFilter(from: 5_000, text: text)] {
            let expected = rows.filter { !$0.isTrashed && filter.keeps($0) }
                .sorted { key($0) != key($1) ? key($0) > key($1) : $0.id < $1.id }.map(\.id)
            let (ids, total) = try Self.allPages(catalog, filter.catalogFilter, limit: 9)
            #expect(ids == expected, "\(filter)")
            #expect(total == expected.count, "\(filter)")
            let top = try catalog.listing(.topLevel, filter: filter.catalogFilter, after: nil, limit: 500)
            #expect(top.items.map(\.id) == expected && top.total == expected.count, "top level: \(filter)")
        }
    }

    /// The date scrubber's months: each month's count, newest first, as Swift counts them;
    /// favourites alone; and a protected folder's sealed dates counted once it is open.
    @Test func monthsCountTheScopesItems() throws {
        let (catalog, rows) = try Self.catalog(count: 400, seed: "months")
        for favoritesOnly in [false, true] {
            var expected = [String: Int]()
            for row in rows where !row.isTrashed && (!favoritesOnly || row.favorite) {
                expected[Vault.month(row.takenAt ?? row.importedAt), default: 0] += 1
            }
            let months = try catalog.months(.all(excluding: []), favoritesOnly: favoritesOnly)
            #expect(months.map(\.month) == expected.keys.sorted(by: >))
            #expect(Dictionary(uniqueKeysWithValues: months.map { ($0.month, $0.count) }) == expected)
        }

        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        for name in ["a", "b", "c"] { try vault.addRaw(Array(name.utf8), name: name, folder: folder) }
        #expect(try vault.months(scope: .folder(folder)).map(\.count) == [3])
        #expect(try vault.months(scope: .library).isEmpty, "a protected folder stays inside")
    }

    /// Days, months and years as typed: four-digit years, two-digit months and days; a
    /// control character in a search is dropped, not sent to SQLite (review L8, L11).
    @Test func periodsAndSearchTextAreReadStrictly() {
        #expect(ItemFilter.period("2024") != nil && ItemFilter.period("2024-02") != nil && ItemFilter.period("2024-02-29") != nil)
        for bad in ["24", "2024-1", "2024-1-5", "2024-02-30", "2023-02-29", "2024-13", "２０２４", "2024-", ""] {
            #expect(ItemFilter.period(bad) == nil, "\(bad)")
        }
        #expect(ItemFilter(text: "ab\u{0}c").text == "abc")
        #expect(ItemFilter(text: "\u{0}").text == nil)
    }

    /// A search of the name and place together leaves out FTS5's column filter because
    /// those are every column the index has: a column added to the index later must not
    /// quietly join the search.
    @Test func theSearchColumnsAreTheIndexsColumns() throws {
        let catalog = try Catalog.empty()
        let columns = try catalog.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('item_search')") }
        #expect(columns == Catalog.searchColumns)
        #expect(Catalog.phrase("a\"b", in: Catalog.searchColumns) == "\"a\"\"b\"")
        #expect(Catalog.phrase("lyon", in: ["place"]) == "{place} : \"lyon\"")
    }

    /// The index's trigrams fold case beyond ASCII, as Swift's comparison does.
    @Test func caseIsFoldedBeyondASCII() throws {
        let (catalog, _) = try Self.catalog(count: 100, seed: "fold")
        let lower = try Self.allPages(catalog, ItemFilter(text: "été à").catalogFilter, limit: 50).ids
        let upper = try Self.allPages(catalog, ItemFilter(text: "ÉTÉ À").catalogFilter, limit: 50).ids
        #expect(!lower.isEmpty && lower == upper)
    }

    /// A protected folder's names and places are sealed (§6.4): the index holds none of
    /// them, a library search finds none, and the open folder is searched in Swift.
    @Test func aProtectedFolderIsSearchedOnlyWhenOpen() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        try vault.addRaw(Array("a".utf8), name: "secret-lagoon.jpg", folder: folder)
        try vault.addRaw(Array("b".utf8), name: "open-lagoon.jpg")
        let indexed = try vault.catalog.database.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM item_search WHERE item_search MATCH '\"secret\"'")
        }
        #expect(indexed == 0)
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "lagoon"), limit: 10).items.map(\.record.name) == ["open-lagoon.jpg"])
        let inside = try vault.itemListing(scope: .folder(folder), filter: ItemFilter(text: "LAGOON"), limit: 10)
        #expect(inside.items.map(\.record.name) == ["secret-lagoon.jpg"] && inside.total == 1)
        #expect(try vault.itemListing(scope: .folder(folder), filter: ItemFilter(text: "open"), limit: 10).total == 0)
    }
}
