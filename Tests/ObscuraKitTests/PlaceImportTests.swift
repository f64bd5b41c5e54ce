import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

/// Places (issue 17, point 4): a photo's EXIF position, named offline, kept in the catalog
/// and nowhere else, sealed in a protected folder, and found by the search.
@Suite struct PlaceImportTests {
    /// A JPEG taken at `latitude`, `longitude`, written under the root as `name`.
    func photo(_ root: TestRoot, _ name: String, latitude: Double, longitude: Double, seed: Int) throws -> String {
        let jpeg = try TestImages.cameraJPEG(width: 64 + seed, height: 48, date: "2024:05:0\(seed) 10:00:00", orientation: 1)
        let path = root.path + "/" + name
        try Data(TestImages.withPosition(jpeg, latitude: latitude, longitude: longitude)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aPhotosPositionIsNamedAndSearchable() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let lyon = try photo(root, "a.jpg", latitude: 45.7640, longitude: 4.8357, seed: 1)
        let sydney = try photo(root, "b.jpg", latitude: -33.8688, longitude: 151.2093, seed: 2)
        let sea = try photo(root, "c.jpg", latitude: -40.0, longitude: -130.0, seed: 3)
        let report = try vault.importFiles([lyon, sydney, sea])
        #expect(report.failures.isEmpty)
        let byName = Dictionary(uniqueKeysWithValues: report.imported.map { ($0.name, $0) })
        let a = try #require(byName["a.jpg"]), b = try #require(byName["b.jpg"]), c = try #require(byName["c.jpg"])
        #expect(a.place?.hasPrefix("Lyon, ") == true && a.place?.hasSuffix(", France") == true, "\(a.place ?? "nil")")
        #expect(abs((a.latitude ?? 0) - 45.7640) < 1e-4 && abs((a.longitude ?? 0) - 4.8357) < 1e-4)
        #expect(b.place?.hasSuffix(", Australia") == true, "\(b.place ?? "nil")")
        #expect(c.place == nil && c.latitude == -40.0, "open sea: a position, no place")

        let inFrance = try vault.itemListing(scope: .visible, filter: ItemFilter(place: "france"), limit: 10)
        #expect(inFrance.items.map(\.record.name) == ["a.jpg"])
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(text: "sydney"), limit: 10).items.map(\.record.name) == ["b.jpg"])
    }

    /// In a protected folder the position and place are sealed with the name (§6.4): the
    /// row shows neither, the folder's key opens both, and its search finds them.
    @Test func aProtectedFoldersPlacesAreSealed() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let folder = try vault.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        let lyon = try photo(root, "a.jpg", latitude: 45.7640, longitude: 4.8357, seed: 1)
        let item = try #require(try vault.importFiles([lyon], into: folder).imported.first)
        let row = try #require(try vault.catalog.allItems().first { $0.id == item.id })
        #expect(row.place == nil && row.latitude == nil && row.longitude == nil && row.protectedMeta != nil)
        #expect(try vault.item(item.id).place?.hasPrefix("Lyon, ") == true)
        #expect(try vault.itemListing(scope: .folder(folder), filter: ItemFilter(place: "LYON"), limit: 10).total == 1)
        #expect(try vault.itemListing(scope: .visible, filter: ItemFilter(place: "lyon"), limit: 10).total == 0)
    }
}
