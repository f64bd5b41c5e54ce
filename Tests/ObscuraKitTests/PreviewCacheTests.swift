import Foundation
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

@Suite struct PreviewCacheTests {
    func tempRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-cache-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    @Test func spillsSealedToDiskAndClearsEverything() throws {
        let root = try tempRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cache = PreviewCache(memoryLimit: 100, root: root)
        let first = Array(repeating: UInt8(0x41), count: 80), second = Array(repeating: UInt8(0x42), count: 80)
        cache.put("first", first)
        #expect(cache.directoryPath == nil, "nothing on disk until memory is full")
        cache.put("second", second)
        #expect(cache.memoryCount == 1)
        let dir = try #require(cache.directoryPath)
        #expect(try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(files.count == 1 && !files[0].contains("first"))
        let onDisk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + files[0])))
        let run = [UInt8](repeating: 0x41, count: 8)
        #expect(!(0...(onDisk.count - 8)).contains { Array(onDisk[$0..<($0 + 8)]) == run }, "sealed, not plaintext")
        #expect(cache.get("first") == first)
        #expect(cache.get("second") == second)
        // A deleted item's entry goes, from the disk tier and from memory.
        cache.remove(["first", "second"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(cache.get("first") == nil && cache.get("second") == nil && cache.memoryCount == 0)
        cache.put("first", first)
        cache.put("second", second)
        cache.clear()
        #expect(!FileManager.default.fileExists(atPath: dir))
        #expect(cache.get("first") == nil && cache.get("second") == nil)
    }

    @Test func sweepRemovesOnlyAbandonedDirectories() throws {
        let root = try tempRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let abandoned = root + "/obscura-cache-abandoned"
        try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: true)
        let live = PreviewCache(memoryLimit: 1, root: root)
        live.put("a", [1, 2])
        live.put("b", [3, 4])
        let liveDir = try #require(live.directoryPath)
        PreviewCache.sweepLeftovers(in: root)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: liveDir))
        #expect(live.get("a") == [1, 2])
    }

    @Test func vaultPreviewsAreCachedAndDroppedAtLock() throws {
        let root = try TestRoot()
        let (vault, item, _) = try root.vaultWithPhoto(width: 4000, height: 3000, date: "2020:01:01 00:00:00")
        let preview = try #require(try vault.preview(item))
        let info = try preview.withUnsafeBytes { try Imaging.probe($0) }
        #expect(info.width == 1440 && info.height == 1080)
        #expect(vault.previews.get(item.id) == preview)
        vault.lock()
        #expect(vault.previews.get(item.id) == nil)
        #expect(throws: VaultError.locked) { try vault.preview(item) }
    }

    /// Ends (issue 19): a view-limited item's preview is never kept, and an item deleted
    /// for good (an ended one) takes its preview with it.
    @Test func previewsOfEndingItemsAreNotKept() throws {
        let root = try TestRoot()
        let (vault, item, _) = try root.vaultWithPhoto(width: 2000, height: 1500, date: "2020:01:01 00:00:00")
        _ = try #require(try vault.preview(item))
        #expect(vault.previews.get(item.id) != nil)
        try vault.setEnd([item.id], ItemEnd(views: 3))
        #expect(vault.previews.get(item.id) == nil, "given views, its cached preview goes")
        _ = try #require(try vault.preview(try vault.item(item.id)))
        #expect(vault.previews.get(item.id) == nil, "a view-limited item's preview is made anew, never kept")
        try vault.setEnd([item.id], nil)
        _ = try #require(try vault.preview(try vault.item(item.id)))
        #expect(vault.previews.get(item.id) != nil)
        try vault.deleteItems([item.id])
        #expect(vault.previews.get(item.id) == nil, "deleted for good, its preview goes too")
    }
}
