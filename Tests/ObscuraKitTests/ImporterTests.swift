import Foundation
import GRDB
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCatalog
@testable import ObscuraKit

@Suite struct ImporterTests {
    /// A source directory of camera photos, a PNG, a HEIC, a video, a text file and the
    /// bad inputs, each with a distinctive name.
    final class Sources {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-src-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
        }
    }

    func vault(_ root: TestRoot) throws -> Vault {
        try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
    }

    func poolFiles(_ root: TestRoot) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.vaultPath + "/media").sorted()
    }

    @Test func importsGoodFilesReportsBadOnesAndLeavesNoStrays() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let src = try Sources()
        let camera = try TestImages.cameraJPEG(width: 4000, height: 3000, date: "2023:07:14 18:32:05", orientation: 6)
        try src.write("holiday-beach-sunset.jpg", camera)
        try src.write("sub/holiday-copy.jpg", camera)                      // duplicate content
        try src.write("diagram-flowchart.png", TestImages.image("png", width: 640, height: 480))
        try src.write("phone-portrait.heic", TestImages.image("heic", width: 640, height: 480))
        _ = try TestImages.video(in: src.path, metadata: ["creation_time": "2024-07-20T14:03:11Z"])  // clip.mp4
        try src.write("notes-private.txt", Array("dear diary".utf8))
        try src.write("empty-file.jpg", [])
        let jpeg = try TestImages.image("jpg", width: 800, height: 600)
        try src.write("broken-scan.jpg", Array(jpeg.prefix(jpeg.count / 3)))
        try src.write("huge-panorama.jpg", TestImages.image("jpg", width: 4000, height: 3500))
        try src.write(".hidden", [1])
        // An unreadable entry: mode 000 where permissions apply, a dangling link for root.
        if geteuid() == 0 {
            try FileManager.default.createSymbolicLink(atPath: src.path + "/unreadable.jpg", withDestinationPath: "/nonexistent/x")
        } else {
            try src.write("unreadable.jpg", jpeg)
            chmod(src.path + "/unreadable.jpg", 0)
        }

        let report = try v.importFiles([src.path], pixelLimit: 13_000_000)
        #expect(Set(report.imported.map(\.name)) == ["holiday-beach-sunset.jpg", "diagram-flowchart.png", "phone-portrait.heic", "clip.mp4", "notes-private.txt"])
        #expect(report.duplicates.count == 1)
        let failures = Dictionary(uniqueKeysWithValues: report.failures.map { (($0.path as NSString).lastPathComponent, $0.message) })
        #expect(failures["empty-file.jpg"] == "empty file")
        #expect(failures["broken-scan.jpg"]?.hasPrefix("not imported: damaged or truncated image") == true)
        #expect(failures["huge-panorama.jpg"] == "not imported: image too large: 4000x3500 is over the 13-megapixel limit")
        #expect(failures["unreadable.jpg"] != nil)
        #expect(failures.count == 4)

        let items = try v.items()
        let photo = items.first { $0.record.name == "holiday-beach-sunset.jpg" }!.record
        #expect(photo.kind == .photo && photo.width == 4000 && photo.orientation == 6)
        #expect(photo.takenAt == 1_689_359_525)
        #expect(try v.read(photo, range: 0..<UInt64(camera.count)) == camera)
        let thumb = try v.thumbnail(photo)!
        #expect(thumb.prefix(2) == [0xFF, 0xD8])
        let video = items.first { $0.record.name == "clip.mp4" }!.record
        #expect(video.kind == .video && video.width == 320 && video.thumbId != nil)
        #expect(video.takenAt == 1_721_484_191, "a movie's creation time is its capture time (issue 40, point 13)")
        let text = items.first { $0.record.name == "notes-private.txt" }!.record
        #expect(text.kind == .file && text.thumbId == nil)
        // Exactly the files the catalog names: no stray temporaries or partial outputs.
        let named = items.flatMap { [$0.record.mediaId + ".data.enc"] + ($0.record.thumbId.map { [$0 + ".thumb.enc"] } ?? []) }
        #expect(try poolFiles(root) == named.sorted())
    }

    @Test func nothingOnDiskRevealsContentOrNames() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let src = try Sources()
        var xmpJPEG = try TestImages.cameraJPEG(width: 1200, height: 900, date: "2021:01:02 03:04:05", orientation: 1)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'></x:xmpmeta>".utf8)
        xmpJPEG.insert(contentsOf: [0xFF, 0xE1, UInt8((xmp.count + 2) >> 8), UInt8((xmp.count + 2) & 0xFF)] + xmp, at: 2)
        try src.write("unmistakable-filename-alpha.jpg", xmpJPEG)
        try src.write("unmistakable-filename-beta.png", TestImages.image("png", width: 300, height: 200))
        try src.write("unmistakable-filename-gamma.heic", TestImages.image("heic", width: 300, height: 200))
        try src.write("unmistakable-filename-delta.webp", TestImages.image("webp", width: 300, height: 200))
        try src.write("unmistakable-filename-epsilon.gif", TestImages.image("gif", width: 300, height: 200))
        _ = try TestImages.video(in: src.path)
        let secret = try v.createFolder("unmistakable-folder-zeta", password: pw("f"), iterations: testIterations)
        #expect(try v.importFiles([src.path]).failures.isEmpty)
        try src.write("unmistakable-filename-eta.jpg", TestImages.image("jpg", width: 300, height: 200))
        #expect(try v.importFiles([src.path + "/unmistakable-filename-eta.jpg"], into: secret).imported.count == 1)

        let signatures: [(String, [UInt8])] = [
            ("JFIF", Array("JFIF\0".utf8)), ("Exif", Array("Exif\0\0".utf8)), ("XMP", Array("x:xmpmeta".utf8)),
            ("XMP namespace", Array("ns.adobe.com/xap".utf8)), ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            ("GIF", Array("GIF89a".utf8)), ("WebP", Array("WEBPVP8".utf8)), ("ISO media", Array("ftypisom".utf8)),
            ("HEIC", Array("ftypheic".utf8)), ("MP4 box", Array("moov".utf8) + [0, 0]), ("name", Array("unmistakable".utf8)),
            ("video name", Array("clip.mp4".utf8)),
        ]
        var scanned = 0
        let enumerator = FileManager.default.enumerator(atPath: root.vaultPath)!
        while let relative = enumerator.nextObject() as? String {
            let path = root.vaultPath + "/" + relative
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            #expect(!relative.contains("unmistakable") && !relative.contains("clip"))
            if isDirectory.boolValue { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            scanned += 1
            for (what, signature) in signatures {
                #expect(!contains(bytes, signature), "\(what) found in \(relative)")
            }
        }
        #expect(scanned == 10 + 7 * 2)
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first && Array(haystack[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }

    /// The batch's commit fails at the container's first write (a full disk): the import
    /// fails, and the directory, reopened (its container recovers first), holds the
    /// vault as it was. The batch's sealed files may stay in the pool, named by no
    /// catalog: after a failed commit the session cannot tell whether its catalog landed
    /// until the container has recovered, and a file a catalog names is never removed.
    @Test func aFailedCommitLeavesTheVaultAsItWas() throws {
        let root = try TestRoot()
        struct DiskFull: Error {}
        final class Fault: @unchecked Sendable {
            // @unchecked: `armed` is read and written under `lock`.
            let lock = NSLock()
            var armed = false
        }
        let fault = Fault()
        do {
            let directory = try VaultDirectory(
                path: root.vaultPath, deviceSecrets: root.secrets, outerKey: root.outerKey, create: true, random: SystemRandom(),
                slotFiles: { SteppedSlotFiles(path: $0) { if fault.lock.withLock({ fault.armed }) { throw DiskFull() } } })
            try directory.initialize(iterations: testIterations)
            let v = try directory.createVault(password: pw("pw"), iterations: testIterations)
            let src = try Sources()
            try src.write("a.png", TestImages.image("png", width: 100, height: 100))
            try src.write("b.txt", [1, 2, 3])
            fault.lock.withLock { fault.armed = true }
            // The failure reaches the importer through SQLite's commit, as an I/O error.
            #expect(throws: (any Error).self) { try v.importFiles([src.path]) }
            fault.lock.withLock { fault.armed = false }
            v.lock()
        }
        let reopened = try root.open(create: false).unlock(password: pw("pw"))
        defer { reopened.lock() }
        #expect(try reopened.catalog.counts().items == 0)
    }

    @Test func importIntoAProtectedFolderHidesEverything() throws {
        let root = try TestRoot()
        let v = try vault(root)
        let src = try Sources()
        try src.write("private.png", TestImages.image("png", width: 100, height: 100))
        let folder = try v.createFolder("Private", password: pw("fpw"), iterations: testIterations)
        _ = try v.importFiles([src.path], into: folder)
        v.lockFolders()
        #expect(try v.items().isEmpty)
        let row = try v.catalog.database.read { try ItemRecord.fetchOne($0) }!
        #expect(row.name.isEmpty && row.width == nil)
        #expect(throws: VaultError.folderLocked("Private")) { try v.thumbnail(row) }
        #expect(throws: VaultError.folderLocked("Private")) { try v.importFiles([src.path], into: folder) }
        try v.unlockFolder(folder, password: pw("fpw"))
        #expect(try v.items().map(\.record.name) == ["private.png"])
        #expect(try v.thumbnail(row)?.prefix(2) == [0xFF, 0xD8])
    }
}
