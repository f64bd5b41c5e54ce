import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore
@testable import ObscuraKeys

/// Drops (issue 19 item 3; docs/FORMAT.md §10): files sealed to a vault's drop code while
/// it is locked, taken in by that vault at its next unlock and by no other.
@Suite struct DropTests {
    @Test func aCodeReadsBackLenientlyAndCatchesATypo() throws {
        let pair = try HPKEExporter.KeyPair.generate()
        let code = DropCode(publicKey: pair.publicKey)
        let text = code.text
        #expect(text.hasPrefix("DROPS-") && text.count == KeyText.displayLength)
        #expect(try DropCode(text: text) == code)
        #expect(try DropCode(text: text.lowercased().replacingOccurrences(of: "-", with: " ")) == code)
        var typo = Array(text)
        typo[10] = typo[10] == "A" ? "B" : "A"
        #expect(throws: DropError.invalidCode) { try DropCode(text: String(typo)) }
        // A key text of another kind is never a drop code, nor a code a key text.
        let outer = KeyText.encode(SecureBytes(copying: pair.publicKey), kind: .outer)
        #expect(throws: DropError.invalidCode) { try DropCode(text: outer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }) }
        #expect(throws: KeyError.invalidKeyText) { try KeyText.decode(SecureBytes(copying: Array(text.utf8)), kind: .outer) }
    }

    @Test func everySlotHasADropKeyDecoysToo() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("pw"), iterations: testIterations)
        #expect(try vault.dropKeyPair() != nil, "a new vault has its key from its creation")
        let credential = DeviceSecretStore.credential(from: try directory.deviceSecrets.load())
        let decoy = try directory.unlock(password: credential)
        #expect(try decoy.dropKeyPair() != nil)
        let vaultCode = try vault.dropCode()
        #expect(try decoy.dropCode() != vaultCode)
        decoy.lock()
    }

    @Test func aDropGoesToItsVaultAndNoOther() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let passwords = ["one", "two", "three"]
        var codes = [DropCode]()
        for password in passwords {
            let vault = try directory.createVault(password: pw(password), iterations: testIterations)
            codes.append(try vault.dropCode())
            vault.lock()
        }
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let photo = try TestImages.image("jpeg", width: 64, height: 48)
        try inbox.drop(bytes: photo, name: "for two.jpg", to: codes[1])
        let file = root.path + "/three.png"
        try Data(try TestImages.image("png", width: 40, height: 30)).write(to: URL(fileURLWithPath: file))
        try inbox.drop(file: file, to: codes[2])
        #expect(inbox.blobNames().count == 2)

        let one = try directory.unlock(password: pw("one"))
        #expect(try one.items().isEmpty)
        #expect(inbox.blobNames().count == 2, "another vault's drops stay")
        one.lock()
        let two = try directory.unlock(password: pw("two"))
        #expect(try two.items().map(\.record.name) == ["for two.jpg"])
        #expect(inbox.blobNames().count == 1)
        two.lock()
        let three = try directory.unlock(password: pw("three"))
        #expect(try three.items().map(\.record.name) == ["three.png"])
        #expect(inbox.blobNames().isEmpty)
        #expect(try three.consistencyProblems().isEmpty)
    }

    /// A crash after the import's commit and before the blob's removal: the next intake
    /// finds the content already there and removes the blob, without a second item.
    @Test func aBlobLeftAfterItsCommitIsNotTakenTwice() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let name = try inbox.drop(bytes: try TestImages.image("jpeg", width: 32, height: 32), name: "once.jpg", to: try vault.dropCode())
        let kept = try Data(contentsOf: URL(fileURLWithPath: inbox.path + "/" + name))
        #expect(try vault.takeDrops().taken == 1)
        try kept.write(to: URL(fileURLWithPath: inbox.path + "/" + name))
        let again = try vault.takeDrops()
        #expect(again.taken == 0 && again.duplicates == 1)
        #expect(inbox.blobNames().isEmpty)
        #expect(try vault.items().count == 1)
    }

    @Test func aBlobIsSizedAndNamedLikeAPoolOriginal() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let content = [UInt8](repeating: 9, count: 300_000)
        let name = try inbox.drop(bytes: content, name: "a.bin", to: try vault.dropCode())
        #expect(MediaPool.isPoolFileName(name) && name.hasSuffix(".data.enc"))
        let blob = try Array(Data(contentsOf: URL(fileURLWithPath: inbox.path + "/" + name)))
        let plain = DropFormat.envelope(kind: .file, name: "a.bin").count + content.count
        // A version 2 pool original of `plain` bytes: 52-byte header, 16 bytes a chunk.
        #expect(blob.count == 52 + plain + 16 * 2)
        #expect(Array(blob.prefix(6)) == [0x4F, 0x42, 0x53, 0x4B, 0x00, 0x02])
    }

    @Test func theInboxAcceptsOnlyWellFormedBlobs() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let name = try inbox.drop(bytes: Array("note".utf8), name: "x.bin", to: try vault.dropCode())
        let blob = try Array(Data(contentsOf: URL(fileURLWithPath: inbox.path + "/" + name)))
        _ = try inbox.add(blob: blob)
        #expect(throws: DropError.self) { try inbox.add(blob: Array(blob.dropLast())) }
        #expect(throws: DropError.self) { try inbox.add(blob: [UInt8](repeating: 0, count: 100)) }
        var protected = blob
        protected[7] = 1
        #expect(throws: DropError.self) { try inbox.add(blob: protected) }
        #expect(inbox.blobNames().count == 2)
    }

    /// A dropped note becomes a note titled by its name, once: the same note dropped again
    /// (or its blob left by a crash) is a duplicate. A file of any kind is taken like an upload.
    @Test func aNoteBecomesANoteAndAnyFileIsTaken() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        try inbox.drop(bytes: Array("# Hello\n\nfrom the drop".utf8), name: "Greeting", kind: .note, to: code)
        try inbox.drop(bytes: Array("not an image".utf8), name: "x.txt", to: code)
        let intake = try vault.takeDrops()
        #expect(intake == DropIntake(taken: 2, notes: 1))
        #expect(intake.summary == "Took in 1 dropped file and 1 dropped note.")
        #expect(inbox.blobNames().isEmpty)
        let notes = try vault.items().map(\.record).filter { $0.kind == .note }
        #expect(notes.map(\.name) == ["Greeting"])
        #expect(try vault.noteBody(notes[0].id) == "# Hello\n\nfrom the drop")

        try inbox.drop(bytes: Array("# Hello\n\nfrom the drop".utf8), name: "Again", kind: .note, to: code)
        try inbox.drop(bytes: [0xFF, 0xFE, 0x00], name: "binary", kind: .note, to: code)
        let again = try vault.takeDrops()
        // A note that is not UTF-8 is kept, as a file named by its envelope (§10.6).
        #expect(again.duplicates == 1 && again.taken == 1 && again.failed.isEmpty)
        #expect(again.keptAsFiles.count == 1 && again.keptAsFiles[0].hasPrefix("binary: "), "\(again.keptAsFiles)")
        #expect(again.summary?.contains("Kept as a file") == true)
        #expect(again.summary?.contains("..") == false, "no double full stop: \(again.summary ?? "")")
        #expect(inbox.blobNames().isEmpty)
        #expect(try vault.items().filter { $0.record.kind == .note }.count == 1)
        let kept = try #require(try vault.items().map(\.record).first { $0.name == "binary" })
        #expect(kept.kind == .file)
        #expect(try vault.read(kept, range: 0..<3) == [0xFF, 0xFE, 0x00])
    }

    /// A blob addressed to the vault whose later chunk fails its tag, or which is cut
    /// short, never reads: it is removed and reported, not tried at every unlock. Another
    /// vault's damaged blob is not this vault's to judge, and stays.
    @Test func aDamagedDropIsRemovedAndReported() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("mine"), iterations: testIterations)
        let other = try directory.createVault(password: pw("other"), iterations: testIterations)
        let otherCode = try other.dropCode()
        other.lock()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let content = [UInt8](repeating: 5, count: 600_000)  // three chunks
        let tampered = try inbox.drop(bytes: content, name: "tampered.bin", to: try vault.dropCode())
        let cut = try inbox.drop(bytes: content, name: "cut.bin", to: try vault.dropCode())
        let theirs = try inbox.drop(bytes: content, name: "theirs.bin", to: otherCode)
        func edit(_ name: String, _ change: (inout [UInt8]) -> Void) throws {
            let url = URL(fileURLWithPath: inbox.path + "/" + name)
            var bytes = Array(try Data(contentsOf: url))
            change(&bytes)
            try Data(bytes).write(to: url)
        }
        try edit(tampered) { $0[$0.count - 100] ^= 1 }
        try edit(cut) { $0.removeLast(1000) }
        try edit(theirs) { $0[$0.count - 100] ^= 1 }

        let intake = try vault.takeDrops()
        #expect(intake.taken == 0 && intake.waiting == 0)
        #expect(intake.failed.count == 1, "the tampered blob; the cut one fails its size check and is no one's: \(intake.failed)")
        #expect(inbox.blobNames().sorted() == [cut, theirs].sorted())
        #expect(try vault.items().isEmpty)
    }

    /// A blob whose envelope has a version or kind this reader does not know was sealed by
    /// a newer writer (§10.4): it stays in the inbox at every intake, and the intake says
    /// so, for 30 days; one whose known-version envelope is malformed is removed and reported.
    @Test func aNewerEnvelopeStaysAndAMalformedOneIsRemoved() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("mine"), iterations: testIterations)
        defer { vault.lock() }
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        func sealed(_ plain: [UInt8]) throws -> String {
            var blob = [UInt8]()
            try plain.withUnsafeBytes { bytes in
                try DropBlob.seal(to: code, envelope: [], contentSize: UInt64(bytes.count),
                                  source: ChunkedFileWriter.source(bytes: bytes), using: SystemRandom()) { blob += Array($0) }
            }
            return try inbox.add(blob: blob)
        }
        let content = Array("from a newer Obscura".utf8)
        let newerVersion = try sealed([0x02, 0x01, 0x00, 0x01, UInt8(ascii: "x")] + content)
        let newerKind = try sealed([0x01, 0x07, 0x00, 0x01, UInt8(ascii: "y")] + content)
        _ = try sealed([0x01, 0x01, 0x00, 0x02, 0xC3, 0x28] + content)
        let taken = try inbox.drop(bytes: content, name: "today.txt", to: code)

        let intake = try vault.takeDrops()
        #expect(intake.taken == 1 && intake.newer == 2 && intake.failed.count == 1 && intake.waiting == 0)
        #expect(intake.summary?.contains("2 drops were made by a newer version of Obscura and stay in the inbox") == true)
        #expect(inbox.blobNames().sorted() == [newerVersion, newerKind].sorted() && !inbox.blobNames().contains(taken))
        // The next intake leaves them again, and says so again.
        let again = try vault.takeDrops()
        #expect(again.newer == 2 && again.taken == 0 && inbox.blobNames().count == 2)
        #expect(try vault.items().count == 1)
        // Kept 30 days at most (review S2): a code holder cannot fill the inbox for good.
        let old = Date().addingTimeInterval(-31 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: inbox.path + "/" + newerKind)
        let later = try vault.takeDrops()
        #expect(later.newer == 1 && later.failed.count == 1 && later.failed[0].contains("kept 30 days"))
        #expect(inbox.blobNames() == [newerVersion])
    }

    /// The drop key sits in the catalog as §10.1's 64 lower-case hex digits, and a value
    /// that is not 32 bytes of hex is a corrupt catalog, not a key.
    @Test func theDropKeyIsStoredAsHexText() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let pair = try #require(try vault.dropKeyPair())
        let text = try #require(try vault.catalog.setting(DropFormat.keySetting))
        #expect(text == pair.privateKey.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() })
        try vault.catalog.setSetting(DropFormat.keySetting, to: String(text.dropLast()) + "g")
        #expect(throws: VaultError.self) { try vault.dropKeyPair() }
        try vault.catalog.setSetting(DropFormat.keySetting, to: String(text.dropLast(2)))
        #expect(throws: VaultError.self) { try vault.dropKeyPair() }
    }

    /// The server's bound on the inbox (§10.5): a blob that would take it past
    /// ``DropInbox/maximumBlobs`` blobs or ``DropInbox/maximumBytes`` bytes is refused.
    @Test func theInboxRefusesBlobsPastItsBound() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let name = try inbox.drop(bytes: Array("x".utf8), name: "x.bin", to: try vault.dropCode())
        let blob = Array(try Data(contentsOf: URL(fileURLWithPath: inbox.path + "/" + name)))
        // A sparse file the size of the byte bound, less the blob there already.
        let filler = inbox.path + "/" + MediaPool.temporaryPrefix + "filler"
        #expect(FileManager.default.createFile(atPath: filler, contents: nil))
        #expect(truncate(filler, off_t(DropInbox.maximumBytes) - off_t(blob.count) * 2 + 1) == 0)
        #expect(throws: DropError.inboxFull) { try inbox.add(blob: blob) }
        #expect(truncate(filler, off_t(DropInbox.maximumBytes) - off_t(blob.count) * 2) == 0)
        try inbox.add(blob: blob)
        unlink(filler)
        // As many files as the count bound, empty.
        for i in inbox.blobNames().count..<DropInbox.maximumBlobs {
            #expect(FileManager.default.createFile(atPath: inbox.path + "/" + MediaPool.temporaryPrefix + "\(i)", contents: nil))
        }
        #expect(throws: DropError.inboxFull) { try inbox.add(blob: blob) }
    }

    /// A drop is removed only when the importer refused the file itself; a failure of the
    /// moment (a full disk, a missing tool) leaves it for the next unlock (a review found
    /// a full disk deleting the only copy of a drop).
    @Test func onlyARefusalOfTheFileRemovesADrop() {
        #expect(ImportFailure(ImagingError.corrupt("truncated")).isRefusal)
        #expect(ImportFailure("empty", detail: "empty file").isRefusal)
        #expect(!ImportFailure(StorageError.io("/pool/x", ENOSPC)).isRefusal)
        #expect(!ImportFailure(ImagingError.toolMissing("ffmpeg")).isRefusal)
    }

    /// Notes and files are apart in duplicate detection: a file whose bytes are a note's
    /// body is added, and a note whose body is a file's bytes too (a new user's finding:
    /// `add` skipped such a file as "already in the vault").
    @Test func aFileIsNoDuplicateOfANoteNorANoteOfAFile() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        try vault.addNote(title: "Greeting", body: "hello")
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        try inbox.drop(bytes: Array("hello".utf8), name: "hello.txt", to: code)
        try inbox.drop(bytes: Array("bonjour".utf8), name: "bonjour.txt", to: code)
        #expect(try vault.takeDrops() == DropIntake(taken: 2))
        try inbox.drop(bytes: Array("bonjour".utf8), name: "Salut", kind: .note, to: code)
        #expect(try vault.takeDrops() == DropIntake(taken: 1, notes: 1))
        #expect(try vault.items().count == 4)
    }

    /// A dropped file the importer refuses as what it claims to be is kept as a plain
    /// file with its original bytes (docs/PHONE.md §W6.5, FORMAT.md §10.6): an image over
    /// the pixel limit and a `.jpg` of random bytes become `file` items, said in the
    /// summary; a second drop of one is a duplicate; an empty drop is still removed.
    @Test func aRefusedFileIsKeptAsAFile() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        defer { vault.lock() }
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        // A JPEG whose frame header says 12,000 × 9,000 (108 megapixels, over the limit).
        var huge = try TestImages.image("jpg", width: 64, height: 48)
        let frame = try #require((2..<(huge.count - 9)).first { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 })
        huge.replaceSubrange(frame + 5..<frame + 9, with: [0x23, 0x28, 0x2E, 0xE0])
        let noise = SystemRandom().bytes(50_000)
        try inbox.drop(bytes: huge, name: "huge.jpg", to: code)
        try inbox.drop(bytes: [0xFF, 0xD8, 0xFF] + noise, name: "noise.jpg", to: code)
        try inbox.drop(bytes: [], name: "empty.jpg", to: code)
        let intake = try vault.takeDrops()
        #expect(intake.taken == 2 && intake.keptAsFiles.count == 2 && intake.failed.count == 1, "\(intake)")
        #expect(intake.keptAsFiles.contains { $0.hasPrefix("huge.jpg: ") && $0.contains("megapixel") }, "\(intake.keptAsFiles)")
        #expect(intake.summary?.contains("Kept as files") == true, "\(intake.summary ?? "")")
        #expect(inbox.blobNames().isEmpty)
        let items = try vault.items().map(\.record)
        #expect(Set(items.map(\.name)) == ["huge.jpg", "noise.jpg"])
        #expect(items.allSatisfy { $0.kind == .file && $0.thumbId == nil })
        let hugeItem = try #require(items.first { $0.name == "huge.jpg" })
        #expect(try vault.read(hugeItem, range: 0..<UInt64(huge.count)) == huge)
        let noiseItem = try #require(items.first { $0.name == "noise.jpg" })
        #expect(try vault.read(noiseItem, range: 0..<UInt64(noise.count + 3)) == [0xFF, 0xD8, 0xFF] + noise)
        try inbox.drop(bytes: huge, name: "again.jpg", to: code)
        let again = try vault.takeDrops()
        #expect(again.duplicates == 1 && again.taken == 0, "\(again)")
    }

    /// An intake leaves an empty receipt for each blob it takes in or finds damaged
    /// (FORMAT.md §10.6), which does not count against the inbox's bound and is swept
    /// after 7 days; a blob no vault opens gets none.
    @Test func anIntakeLeavesReceiptsThatAreSweptAfterAWeek() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        defer { vault.lock() }
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let taken = try inbox.drop(bytes: Array("a file".utf8), name: "a.txt", to: try vault.dropCode())
        let foreign = try inbox.drop(bytes: Array("not ours".utf8), name: "b.txt", to: DropCode(publicKey: HPKEExporter.KeyPair.generate().publicKey))
        _ = try vault.takeDrops()
        let names = try FileManager.default.contentsOfDirectory(atPath: inbox.path).sorted()
        #expect(names == [DropInbox.receiptName(for: taken), foreign].sorted(), "\(names)")
        #expect(inbox.usage().count == 1, "a receipt is not a blob")
        let receipt = inbox.path + "/" + DropInbox.receiptName(for: taken)
        #expect(try FileIO.read(receipt).isEmpty)
        inbox.sweepTemporaries(now: Date().addingTimeInterval(6 * 86_400))
        #expect(FileManager.default.fileExists(atPath: receipt))
        inbox.sweepTemporaries(now: Date().addingTimeInterval(8 * 86_400))
        #expect(!FileManager.default.fileExists(atPath: receipt))
    }
}
