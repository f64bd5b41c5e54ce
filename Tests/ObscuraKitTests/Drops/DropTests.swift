import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

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

    /// A note waits in the inbox until the vault takes notes in; a file of any kind is
    /// taken like an upload.
    @Test func aNoteWaitsAndAnyFileIsTaken() throws {
        let root = try TestRoot()
        let vault = try root.newVault()
        let inbox = DropInbox(vaultPath: root.vaultPath)
        let code = try vault.dropCode()
        try inbox.drop(bytes: Array("hello".utf8), name: "hello", kind: .note, to: code)
        try inbox.drop(bytes: Array("not an image".utf8), name: "x.txt", to: code)
        let intake = try vault.takeDrops()
        #expect(intake == DropIntake(taken: 1, waiting: 1))
        #expect(inbox.blobNames().count == 1)
    }
}
