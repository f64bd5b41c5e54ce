import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Exports across media format versions (docs/FORMAT.md §7, §6.6, §6.7): an export of a
/// vault written before version 2 (version 1 media, plain hashes) still imports and
/// reads, and its hashes are converted at unlock; exports made now carry version 2 files.
@Suite struct LegacyMediaExportTests {
    @Test func anExportOfVersion1MediaImportsReadsAndConverts() throws {
        let a = try TestRoot(), b = try TestRoot()
        let source = try a.initialized().createVault(password: pw("vault pw"), iterations: testIterations)
        let secret = try source.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        let top = SeededRandom(seed: "top").bytes(3 * ChunkedFormat.defaultChunkSize / 2)
        let hidden = SeededRandom(seed: "hidden").bytes(900)
        let old = try source.addLegacyRaw(top, name: "top", thumbnail: [9, 8, 7])
        let oldSecret = try source.addLegacyRaw(hidden, name: "hidden", folder: secret, thumbnail: [6, 5])
        let fresh = try source.addRaw([1, 2, 3], name: "fresh", thumbnail: [4])
        let file = a.path + "/v.obscura"
        try source.exportVault(to: file, password: pw("export pw"), iterations: testIterations)

        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("export pw")) == 3)
        // The pool files arrive exactly as stored: version 1 beside version 2.
        for (item, version) in [(old, UInt8(1)), (oldSecret, 1), (fresh, 2)] {
            #expect(try FileIO.read(target.pool.dataPath(item.mediaId))[5] == version)
            #expect(try FileIO.read(target.pool.dataPath(item.mediaId)) == FileIO.read(source.directory.pool.dataPath(item.mediaId)))
        }
        let imported = try target.unlock(password: pw("vault pw"))
        #expect(try imported.read(old, range: 0..<UInt64(top.count)) == top)
        #expect(try imported.thumbnail(old) == [9, 8, 7])
        #expect(try imported.thumbnail(fresh) == [4])
        // Unlock keyed the top-level legacy item; the protected one waits for its folder.
        #expect(try imported.convertContentHashes() == 0)
        #expect(try imported.storedContentHash(old.id) == ContentHashTests.keyed(top, under: imported.key))
        try imported.unlockFolder(try imported.folder(at: "Secret"), password: pw("fpw"))
        let revealed = try imported.item(oldSecret.id)
        #expect(try imported.read(revealed, range: 0..<900) == hidden && revealed.name == "hidden")
        #expect(try imported.thumbnail(revealed) == [6, 5])
        #expect(try imported.storedContentHash(oldSecret.id).count == ContentHash.keyedSize)
        #expect(try imported.importFiles([try sourceFile(top, in: b)]).duplicates.count == 1)
        #expect(try imported.verify().problems.isEmpty)
    }

    func sourceFile(_ bytes: [UInt8], in root: TestRoot) throws -> String {
        let path = root.path + "/" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
