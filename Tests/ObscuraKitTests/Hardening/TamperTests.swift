import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit
@testable import ObscuraStore
@testable import ObscuraKeys

/// Issue #6 item 3: one byte flipped at a time in every slot file (header, sealed catalog,
/// padding), in chunked originals, in thumbnails (single-shot blobs, with and without a
/// folder layer) and in an export. Each flip must fail cleanly or, for slot padding
/// only, be provably harmless; no reader may return other plaintext, or crash.
///
/// Extends VaultDirectoryTests.flippingAnyHeaderByteFailsThatSlotOnly (every header byte
/// of one real slot, through unlock) and ExportTests.everyFlippedByteAndEveryTruncation…
/// (every byte of a one-chunk export): here every slot of the directory, the regions
/// after the header, media files and a multi-chunk export.
@Suite struct TamperTests {
    static let suite = "tamper"
    typealias Tally = TamperFlipper.Tally

    func report(_ name: String, _ tally: Tally) {
        Hardening.report(Self.suite, name, [
            "cases": tally.cases, "failed-cleanly": tally.failedCleanly, "harmless": tally.harmless,
            "wrong-plaintext": tally.wrong,
        ])
        #expect(tally.wrong == 0)
        #expect(tally.cases == tally.failedCleanly + tally.harmless)
    }

    @Test func everySlotFileHeaderCatalogAndPadding() throws {
        let root = try TestRoot(version3: true)
        var real = ""
        try root.makeVersion3([pw("pw")]) { _, vault in
            try vault.write("state", String(repeating: "catalog content ", count: 200))
            real = vault.slotName
        }
        let directory = try root.open(create: false)
        let credential = DeviceSecretStore.credential(from: try root.secrets.load())
        var header = Tally(), catalog = Tally(), padding = Tally()
        for name in try root.slotNames() {
            let password = name == real ? pw("pw") : credential
            // The reader every unlock runs (docs/FORMAT.md §3.5 steps 1-13), on the file as it is now.
            func open() throws -> [UInt8] {
                let contents = try directory.store.read(name)
                let parsed = try SlotHeader.decode(contents)
                let key = try SlotCodec.unwrapKey(header: parsed, password: password)
                return try SlotCodec.openCatalog(contents: contents, header: parsed, key: key)
            }
            let baseline = try open()
            let contents = try directory.store.read(name)
            let parsed = try SlotHeader.decode(contents)
            let key = try SlotCodec.unwrapKey(header: parsed, password: password)
            let catalogEnd = SlotFormat.headerSize + (try SlotCodec.sealedCatalogLength(contents: contents, header: parsed, key: key))
            let flipper = TamperFlipper(path: directory.store.file(name))
            let label = name == real ? "real slot" : "decoy slot"
            header = header + (try flipper.run(offsets: Array(0..<SlotFormat.headerSize), label: label) { try open() == baseline })
            // Past the header, the real slot always, the decoys in the full run.
            guard name == real || Hardening.full else { continue }
            // Full run: every catalog byte of the real slot, a spread over each decoy's.
            catalog = catalog + (try flipper.run(
                offsets: TamperFlipper.offsets(SlotFormat.headerSize..<catalogEnd,
                                               limit: name == real ? Hardening.scale(300, full: 1 << 30) : 2000),
                label: label) { try open() == baseline })
            padding = padding + (try flipper.run(
                offsets: TamperFlipper.offsets(catalogEnd..<contents.count, limit: Hardening.scale(300, full: 5000)),
                label: label, mayBeHarmless: { $0 >= catalogEnd }) { try open() == baseline })
            #expect(try open() == baseline, "every flip was undone")
        }
        report("slot-header", header)
        report("slot-catalog", catalog)
        report("slot-padding", padding)
        #expect(padding.harmless == padding.cases, "padding is not authenticated: every flip there is harmless")
        // A version 3 vault opens once its directory is migrated.
        try directory.migrateToContainer(outerKey: ContainerFixtures.outerKey)
        #expect(try directory.unlock(password: pw("pw")).setting("state") != nil)
    }

    @Test func chunkedOriginalsAndThumbnails() throws {
        let root = try TestRoot()
        let (vault, imported, photo) = try root.vaultWithPhoto(width: 640, height: 480)
        let secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        let small = SeededRandom(seed: "small").bytes(1500)
        let large = SeededRandom(seed: "large").bytes(ChunkedFormat.defaultChunkSize + 777)
        let cases: [(String, ItemRecord, [UInt8], limit: Int)] = [
            ("photo original", imported, try FileIO.read(photo), Hardening.scale(400, full: 1 << 30)),
            ("one-chunk original", try vault.addRaw(small, name: "small", thumbnail: [1, 2, 3]), small, 1 << 30),
            ("two-chunk original", try vault.addRaw(large, name: "large"), large, Hardening.scale(600, full: 1 << 30)),
            ("protected original", try vault.addRaw(small, name: "hidden", folder: secret, thumbnail: [4, 5, 6]), small, 1 << 30),
        ]
        var originals = Tally(), thumbnails = Tally()
        for (label, item, plaintext, limit) in cases {
            let flipper = TamperFlipper(path: try vault.directory.pool.dataPath(item.mediaId))
            // Header, both sides of every chunk boundary, and an even spread of the rest.
            let boundary = ChunkedFormatV2.headerSize + ChunkedFormat.defaultChunkSize + 16
            let pinned = Array(0..<ChunkedFormatV2.headerSize) + Array(min(flipper.size, boundary - 32)..<min(flipper.size, boundary + 32))
            let offsets = Array(Set(pinned + TamperFlipper.offsets(0..<flipper.size, limit: limit))).sorted()
            originals = originals + (try flipper.run(offsets: offsets, label: label) {
                var out = [UInt8]()
                try vault.export(item) { out += $0 }
                return out == plaintext
            })
            guard let thumbId = item.thumbId else { continue }
            let thumbnail = try #require(try vault.thumbnail(item))
            let blob = TamperFlipper(path: try vault.directory.pool.thumbPath(thumbId))
            thumbnails = thumbnails + (try blob.run(offsets: Array(0..<blob.size), label: label + " thumbnail") {
                try vault.thumbnail(item) == thumbnail
            })
        }
        report("chunked-original", originals)
        report("thumbnail", thumbnails)
        #expect(try vault.consistencyProblems().isEmpty)
    }

    @Test func multiChunkExport() throws {
        let a = try TestRoot(), b = try TestRoot()
        let vault = try a.initialized().createVault(password: pw("v"), iterations: testIterations)
        try vault.addRaw(SeededRandom(seed: "x").bytes(ExportFormat.chunkSize + 5000), name: "big", thumbnail: [9])
        let secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        try vault.addRaw([1, 2, 3], name: "hidden", folder: secret)
        let file = a.path + "/v.obscura"
        // One PBKDF2 round: every case opens the export.
        try vault.exportVault(to: file, password: pw("e"), iterations: 1)
        let target = try b.initialized()
        let before = try b.listing(filesOnly: true)
        let flipper = TamperFlipper(path: file)
        let second = ExportFormat.headerSize + ChunkedFormat.headerSize + ExportFormat.chunkSize + 16
        let pinned = Array(0..<(ExportFormat.headerSize + ChunkedFormat.headerSize + 64))
            + Array((second - 64)..<(second + 64)) + Array((flipper.size - 64)..<flipper.size)
        let spread = TamperFlipper.offsets(0..<flipper.size, limit: Hardening.scale(150, full: 6000))
        let tally = try flipper.run(offsets: Array(Set(pinned + spread)).sorted(), label: "export") {
            try target.importVault(from: file, password: pw("e"))
            return false  // an import of a damaged export is never right
        }
        report("export", tally)
        let after = try b.listing(filesOnly: true)
        #expect(after == before, "no failed import changed the target: \(Set(after).symmetricDifference(before))")
        #expect(try target.importVault(from: file, password: pw("e")) == 2)
    }
}
