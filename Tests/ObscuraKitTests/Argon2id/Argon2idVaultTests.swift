import Foundation
import ObscuraCrypto
import Testing
import ObscuraStoreTestSupport
@testable import ObscuraKit
@testable import ObscuraStore

/// Argon2id as the second cipher suite (issue 19, item 4; docs/FORMAT.md §2): a
/// directory's slots share it, and vaults, folders and exports made with it open again.
@Suite struct Argon2idVaultTests {
    /// A small cost, so that the tests stay fast: 32 KiB, one pass, one lane.
    static let small = KDFParameters.argon2id(Argon2idCost(memoryExponent: 5, passes: 1, lanes: 1)!)

    func container(_ root: TestRoot, kdf: KDFParameters = small) throws -> VaultDirectory {
        let directory = try VaultDirectory(path: root.vaultPath, deviceSecrets: root.secrets, outerKey: ContainerFixtures.outerKey, create: true)
        try directory.initialize(kdf: kdf)
        return directory
    }

    @Test func everySlotOfTheDirectorySharesTheSuite() throws {
        let root = try TestRoot()
        let directory = try container(root)
        let vault = try directory.createVault(password: pw("alpha"))
        #expect(vault.kdf == Self.small)
        let headers = try directory.readHeaders().headers
        #expect(headers.count == SlotFormat.minimumSlotCount)
        for header in headers {
            let header = try #require(header)
            #expect(header.kdf == Self.small)
            // Bytes [6, 12) as §2 and §3.1 lay them out: suite 2, then the packed word.
            #expect(Array(header.prefixThroughSalt[6..<12]) == [0x00, 0x02, 0x05, 0x01, 0x01, 0x00])
        }
        // A PBKDF2 fallback is not taken: the decoys' suite is.
        let beta = try directory.createVault(password: pw("beta"), kdf: .pbkdf2(iterations: testIterations))
        #expect(beta.kdf == Self.small)
        #expect(try directory.sharedKDF() == Self.small)
        vault.lock()
        beta.lock()
        #expect(try directory.unlock(password: pw("alpha")).kdf == Self.small)
        #expect(throws: VaultError.wrongPassword) { try directory.unlock(password: pw("gamma")) }
    }

    @Test func passwordChangeKeepsTheSuite() throws {
        let root = try TestRoot()
        let directory = try container(root)
        let vault = try directory.createVault(password: pw("alpha"))
        try vault.changePassword(to: pw("alpha 2"))
        vault.lock()
        let again = try directory.unlock(password: pw("alpha 2"))
        #expect(again.kdf == Self.small)
        #expect(try directory.readHeaders().headers.allSatisfy { $0?.kdf == Self.small })
    }

    @Test func protectedFolderUnlocksAndKeepsItsSuite() throws {
        let root = try TestRoot()
        let directory = try container(root)
        let vault = try directory.createVault(password: pw("alpha"))
        #expect(vault.folderKDF == .argon2id && vault.exportKDF == .argon2id)
        let folder = try vault.createFolder("Secret", password: pw("folder pw"), kdf: Self.small)
        #expect(folder.kdfSuite == 2 && folder.kdfIterations == Int(Self.small.word))
        let item = try vault.addRaw([1, 2, 3, 4], name: "a.bin", folder: folder)
        vault.lock()
        let again = try directory.unlock(password: pw("alpha"))
        let stored = try #require(try again.folders().first { $0.name == "Secret" })
        #expect(throws: VaultError.wrongFolderPassword) { try again.unlockFolder(stored, password: pw("nope")) }
        try again.unlockFolder(stored, password: pw("folder pw"))
        #expect(try again.read(try again.item(item.id), range: 0..<4) == [1, 2, 3, 4])
    }

    @Test func argon2idExportRoundTrips() throws {
        let root = try TestRoot()
        let vault = try container(root).createVault(password: pw("alpha"))
        _ = try vault.addRaw([9, 8, 7], name: "b.bin")
        let file = root.path + "/out.obscura"
        try vault.exportVault(to: file, password: pw("export pw"), kdf: Self.small)
        let header = Array(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(12))
        // §7.1: the KDF field is 2, the cost word Argon2id's.
        #expect(Array(header[6..<12]) == [0x00, 0x02, 0x05, 0x01, 0x01, 0x00])
        #expect(try ExportFile(path: file).kdf == Self.small)

        let other = try TestRoot()
        let target = try container(other)
        #expect(throws: ExportError.wrongPassword) { try target.importVault(from: file, password: pw("wrong")) }
        #expect(try target.importVault(from: file, password: pw("export pw")) == 1)
        let imported = try target.unlock(password: pw("alpha"))
        #expect(imported.kdf == Self.small)
        #expect(try imported.read(try #require(try imported.catalog.allItems().first), range: 0..<3) == [9, 8, 7])
    }

    /// A damaged cost word is refused from the header alone, before anything is derived:
    /// memory past 1 GiB, a reserved byte set, an unknown suite.
    @Test func damagedCostsAreRefusedBeforeDeriving() throws {
        let root = try TestRoot()
        let directory = try container(root)
        let header = try #require(try directory.readHeaders().headers.first ?? nil)
        var bytes = header.encoded()
        #expect(bytes.count == SlotFormat.pagedPrefixSize)
        for (offset, value, failure) in [(8, UInt8(21), "corrupt"), (11, UInt8(1), "corrupt"), (7, UInt8(3), "unsupported")] {
            var damaged = bytes
            damaged[offset] = value
            let checksum = SHA256Digest.hash(damaged[0..<SlotFormat.pagedChecksumOffset])
            damaged.replaceSubrange(SlotFormat.pagedChecksumOffset..<SlotFormat.pagedPrefixSize, with: checksum)
            do {
                _ = try SlotHeader.decode(damaged)
                Issue.record("byte \(offset) = \(value) was accepted")
            } catch let error as SlotError {
                #expect("\(error)".contains(failure == "corrupt" ? "cost out of range" : "cipher suite"), "\(error)")
            }
        }
        // Without a recomputed checksum, the same change is a damaged header.
        bytes[9] = 2
        #expect(throws: SlotError.corrupt("header checksum mismatch")) { try SlotHeader.decode(bytes) }
    }

    /// The real default, RFC 9106's 64 MiB, 3 passes, 4 lanes: ten decoys and a vault are
    /// made and the vault unlocks, with no more memory held at once than the budget.
    @Test func realDefaultUnlocksUnderTheMemoryBudget() throws {
        let root = try TestRoot()
        let directory = try container(root, kdf: .argon2id)
        try directory.createVault(password: pw("alpha")).lock()
        let vault = try directory.unlock(password: pw("alpha"))
        #expect(vault.kdf == .argon2id)
        #expect(Argon2id.peakHeldKiB <= max(Argon2id.memoryBudgetKiB, Argon2idCost.recommended.memoryKiB))
    }
}

extension Argon2idVaultTests {
    /// A review's finding: an export's vault of another suite is refused, since among
    /// the directory's slots it would be the one of another KDF.
    @Test func anExportOfAnotherSuiteIsRefused() throws {
        let source = try TestRoot()
        let vault = try source.initialized().createVault(password: pw("alpha"), iterations: testIterations)
        let file = source.path + "/pbkdf2.obscura"
        try vault.exportVault(to: file, password: pw("export pw"), iterations: testIterations)
        let target = try TestRoot()
        let directory = try container(target)
        let before = try target.snapshot()
        #expect(throws: ExportError.otherKDF(vault: "PBKDF2-HMAC-SHA256, 1,000 iterations", directory: Self.small.description)) {
            try directory.importVault(from: file, password: pw("export pw"))
        }
        #expect(try target.snapshot() == before, "nothing imported")
    }
}
