import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
@testable import ObscuraKit
@testable import ObscuraStore

@Suite struct ExportTests {
    /// A source vault with a photo, a video, a text file and an item in a protected folder.
    func sourceVault(_ root: TestRoot) throws -> Vault {
        let vault = try root.initialized().createVault(password: pw("vault pw"), iterations: testIterations)
        let src = root.path + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        try Data(TestImages.cameraJPEG(width: 800, height: 600, date: "2022:02:02 12:00:00", orientation: 1))
            .write(to: URL(fileURLWithPath: src + "/photo.jpg"))
        _ = try TestImages.video(in: src)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: src + "/notes.txt"))
        #expect(try vault.importFiles([src]).imported.count == 3)
        let secret = try vault.createFolder("Secret", password: pw("folder pw"), iterations: testIterations)
        try Data(TestImages.image("png", width: 64, height: 64)).write(to: URL(fileURLWithPath: root.path + "/hidden.png"))
        #expect(try vault.importFiles([root.path + "/hidden.png"], into: secret).imported.count == 1)
        vault.lockFolders()
        return vault
    }

    @Test func roundTripIntoAnotherMachinesDirectory() throws {
        let a = try TestRoot(), b = try TestRoot()
        let source = try sourceVault(a)
        let file = a.path + "/vault.obscura"
        try source.exportVault(to: file, password: pw("export pw"), iterations: testIterations)
        #expect(try FileManager.default.contentsOfDirectory(atPath: a.path).filter { $0.contains("partial") }.isEmpty)

        let target = try b.initialized()
        #expect(try target.importVault(from: file, password: pw("export pw")) == 4)
        #expect(try b.slotNames().count == 10 && target.decoyNames().count == 9)
        let imported = try target.unlock(password: pw("vault pw"))
        #expect(try imported.items().map(\.record) == source.items().map(\.record))
        for view in try source.items() {
            var original = [UInt8](), copy = [UInt8]()
            try source.export(view.record) { original += $0 }
            try imported.export(view.record) { copy += $0 }
            #expect(original == copy && !copy.isEmpty)
            #expect(try imported.thumbnail(view.record) == source.thumbnail(view.record))
        }
        let secret = try imported.folder(at: "Secret")
        #expect(!imported.isOpen(secret))
        #expect(throws: VaultError.wrongFolderPassword) { try imported.unlockFolder(secret, password: pw("export pw")) }
        try imported.unlockFolder(secret, password: pw("folder pw"))
        #expect(try imported.items(in: secret).map(\.record.name) == ["hidden.png"])
        // The same vault twice is refused, and nothing changes.
        let before = try b.listing()
        #expect(throws: ExportError.alreadyPresent) { try target.importVault(from: file, password: pw("export pw")) }
        #expect(try b.listing() == before)
    }

    @Test func wrongPasswordIsRejectedAfterReadingOnlyTheHeader() throws {
        let a = try TestRoot()
        let file = a.path + "/v.obscura"
        try sourceVault(a).exportVault(to: file, password: pw("right"), iterations: testIterations)
        let export = try ExportFile(path: file)
        #expect(throws: ExportError.wrongPassword) { try export.open(password: pw("wrong")) }
        #expect(export.bytesRead == ExportFormat.headerSize)
        try export.open(password: pw("right"))
        #expect(export.bytesRead == ExportFormat.headerSize + ChunkedFormat.headerSize)
    }

    @Test func everyFlippedByteAndEveryTruncationFailsAndChangesNothing() throws {
        let a = try TestRoot(), b = try TestRoot()
        let vault = try a.initialized().createVault(password: pw("v"), iterations: testIterations)
        try vault.addRaw([1, 2, 3, 4, 5], name: "tiny", thumbnail: [9, 9])
        let file = a.path + "/small.obscura"
        // One PBKDF2 round: this test opens the export once per byte.
        try vault.exportVault(to: file, password: pw("e"), iterations: 1)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let target = try b.initialized()
        let before = try b.listing()
        let damaged = a.path + "/damaged.obscura"
        var failures = 0
        func attempt(_ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            do {
                try target.importVault(from: damaged, password: pw("e"))
            } catch {
                failures += 1
            }
        }
        // Every byte at full size (scripts/harden). In CI the header, the first chunk's
        // start and the last chunk's tag always, and a seeded sample between them: each
        // flip is an import of its own, and since the default directory became a version
        // 4 container the export is large enough that flipping all of it took 392 s.
        let offsets = Hardening.sample(original.count, count: 2_048, edges: 256, name: "export flips")
        print("export flips: seed \(Hardening.seed) (OBSCURA_TEST_SEED), \(offsets.count) of \(original.count) bytes")
        for offset in offsets {
            var bytes = original
            bytes[offset] ^= 0x01
            try attempt(bytes)
        }
        #expect(failures == offsets.count, "every flipped byte fails")
        failures = 0
        let cuts = Array(stride(from: 0, to: original.count, by: 97)) + [original.count - 1, original.count - 16, 64, 88]
        for cut in cuts { try attempt(Array(original.prefix(cut))) }
        #expect(failures == cuts.count, "every truncation fails")
        #expect(try b.listing() == before)
        // And the intact file still imports.
        #expect(try target.importVault(from: file, password: pw("e")) == 1)
    }

    /// §7.4: `vault` repeats the slot header, all three fields, and `format` is 1. The
    /// payload of a real export is resealed with one manifest field edited.
    @Test func manifestDisagreeingWithItsSlotIsRefused() throws {
        let a = try TestRoot(), b = try TestRoot()
        let vault = try a.initialized().createVault(password: pw("v"), iterations: testIterations)
        try vault.addRaw([1, 2, 3], name: "tiny")
        let file = a.path + "/v.obscura"
        try vault.exportVault(to: file, password: pw("e"), iterations: 1)
        let payload = try ExportFile(path: file).open(password: pw("e"))
        let plain = try payload.bytes(payload.remaining)
        let m = Int(plain.readBigEndian(UInt32.self, at: 0))
        let manifest = try JSONSerialization.jsonObject(with: Data(plain[4..<(4 + m)])) as! [String: Any]
        let target = try b.initialized()
        func reimport(_ edit: (inout [String: Any]) -> Void) throws {
            var edited = manifest
            edit(&edited)
            let json = [UInt8](try JSONSerialization.data(withJSONObject: edited))
            var bytes = [UInt8]()
            bytes.appendBigEndian(UInt32(json.count))
            bytes += json + plain[(4 + m)...]
            let path = a.path + "/edited-\(UUID().uuidString).obscura"
            try bytes.withUnsafeBytes { raw in
                try ExportFormat.write(to: path, password: pw("e"), kdf: .pbkdf2(iterations: 1), totalSize: UInt64(bytes.count),
                                       source: ChunkedFileWriter.source(bytes: raw), using: SystemRandom())
            }
            try target.importVault(from: path, password: pw("e"))
        }
        #expect(throws: ExportError.damaged("manifest and slot disagree")) {
            try reimport { fields in
                var vault = fields["vault"] as! [String: Any]
                vault["iterations"] = (vault["iterations"] as! Int) + 1
                fields["vault"] = vault
            }
        }
        #expect(throws: ExportError.damaged("manifest format")) { try reimport { $0["format"] = 4 } }
        // Format 3 says an item carries a second original (a Live Photo's motion).
        #expect(throws: ExportError.damaged("manifest format 3 for its items")) { try reimport { $0["format"] = 3 } }
        // Format 2 says an item carries a rendition; none here does.
        #expect(throws: ExportError.damaged("manifest format 2 for its items")) { try reimport { $0["format"] = 2 } }
        #expect(try target.decoyNames().count == 10, "nothing was imported")
        // The same payload, re-encoded but unedited, imports: the refusals above are the edits'.
        try reimport { _ in }
        #expect(try target.decoyNames().count == 9)
    }

    @Test func generatedPasswordsAndLenientInput() {
        let generated = ExportFormat.generatePassword()
        let text = String(decoding: generated.withUnsafeBytes { Array($0) }, as: UTF8.self)
        #expect(text.count == 23 && text.split(separator: "-").map(\.count) == [5, 5, 5, 5])
        #expect(text.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ-".contains($0) })
        #expect(ExportFormat.generatePassword() != generated)
        let canonical = ExportFormat.canonicalPassword(pw("8FD93-EYWZR-GB7HX-QAVNS"))
        #expect(canonical == pw("8FD93EYWZRGB7HXQAVNS"))
        #expect(ExportFormat.canonicalPassword(pw("8fd93 eywzr gb7hx qavns")) == canonical)
        #expect(ExportFormat.canonicalPassword(pw("8FD93-EYWZR-GB7HX-QAVNS".replacingOccurrences(of: "1", with: "l"))) == canonical)
        #expect(ExportFormat.canonicalPassword(pw("OIL00-00000-00000-00000")) == pw("01100000000000000000"))
        // Anything else is used exactly as typed.
        #expect(ExportFormat.canonicalPassword(pw("my own export password")) == pw("my own export password"))
    }

    @Test func exportNeverOverwritesAndLeavesNoPartialFile() throws {
        let a = try TestRoot()
        let vault = try a.initialized().createVault(password: pw("v"), iterations: testIterations)
        let file = a.path + "/exists.obscura"
        try Data([1]).write(to: URL(fileURLWithPath: file))
        #expect(throws: ExportError.outputExists(file)) { try vault.exportVault(to: file, password: pw("e"), iterations: 1) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data([1]))
        // A write that fails half-way (here: a pool file vanished) leaves no file behind.
        let item = try vault.addRaw(Array(repeating: 7, count: 3 << 20), name: "big")
        try vault.addRaw([1], name: "small")
        try FileManager.default.removeItem(atPath: vault.directory.pool.dataPath(item.mediaId))
        #expect(throws: StorageError.self) {
            try vault.exportVault(to: a.path + "/new.obscura", password: pw("e"), iterations: 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: a.path).filter { $0.hasPrefix("new.obscura") }.isEmpty)
    }

    /// Issue #13 item 12: a killed export leaves `NAME.partial-PID-RANDOM`; the next export
    /// to NAME removes the ones whose writer is gone, and nothing else: not a partial of a
    /// live writer (its process runs, or it holds the file's lock), not another name's,
    /// not a file that only looks alike.
    @Test func exportRemovesStalePartialsOfItsOwnNameOnly() throws {
        let a = try TestRoot()
        let vault = try a.initialized().createVault(password: pw("v"), iterations: testIterations)
        try vault.addRaw([1, 2, 3], name: "x")
        let target = a.path + "/out.obscura"
        let dead = try Self.exitedProcessId()
        let stale = [target + ".partial-\(dead)-0123abcd", target + ".partial-\(dead)-ffffffff"]
        let locked = target + ".partial-\(dead)-89abcdef"
        let kept = [
            target + ".partial-\(getpid())-0123abcd",            // a live process, not holding a lock yet
            locked,                                               // a writer in another pid namespace
            a.path + "/other.obscura.partial-\(dead)-0123abcd",   // another name
            target + ".partial-\(dead)-0123abcd.txt", target + ".partial-notes", target + ".partial-\(dead)-0123ABCD",
            target + ".partial-0123abcd",                         // an older version's, with no pid to check
        ]
        for file in stale + kept { try Data([1]).write(to: URL(fileURLWithPath: file)) }
        let lock = open(locked, O_RDONLY)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)

        // The export's own partial carries its pid and is locked while written.
        var ownPartialLocked = false
        vault.directory.store.steps.faultInjector = { step in
            guard step == .wroteExport else { return }
            let names = try FileManager.default.contentsOfDirectory(atPath: a.path)
            let own = names.filter { $0.hasPrefix("out.obscura.partial-\(getpid())-") && !kept.contains(a.path + "/" + $0) }
            guard own.count == 1 else { return }
            let fd = open(a.path + "/" + own[0], O_RDONLY)
            defer { close(fd) }
            ownPartialLocked = flock(fd, LOCK_EX | LOCK_NB) != 0
        }
        try vault.exportVault(to: target, password: pw("e"), iterations: 1)
        vault.directory.store.steps.faultInjector = nil
        #expect(ownPartialLocked, "the writer holds a lock on its partial")
        for file in stale { #expect(!FileManager.default.fileExists(atPath: file), "\(file) removed") }
        for file in kept { #expect(FileManager.default.fileExists(atPath: file), "\(file) kept") }
        let left = try FileManager.default.contentsOfDirectory(atPath: a.path).filter { $0.hasPrefix("out.obscura.partial-") }
        #expect(left.count == kept.count - 1, "no partial of this export is left: \(left)")
    }

    /// The pid of a process that has exited.
    static func exitedProcessId() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
