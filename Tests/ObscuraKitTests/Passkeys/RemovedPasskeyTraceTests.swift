import Foundation
import ObscuraCrypto
import ObscuraStoreTestSupport
import ObscuraTestSupport
import Testing
@testable import ObscuraKeys
@testable import ObscuraKit
@testable import ObscuraStore

/// What a removed passkey leaves in the container (docs/FORMAT.md §9.7, review PR8 d): a
/// holder of O who tries every block of the slot file as block 0, under every key
/// generation, finds no version whose field the removed PRF output opens once the
/// removal's whole commit has overwritten the free half; without that commit, it does.
@Suite struct RemovedPasskeyTraceTests {
    /// Every version of logical block 0 that slot `name`'s file holds, as a holder of O
    /// reads it: each block from the first data position on that opens as data block 0
    /// under a generation from 0 to the newest a valid superblock names (an older
    /// generation's key is as derivable from O as the current one's).
    static func blockZeroVersions(_ root: TestRoot, slotName name: String, directoryID: [UInt8]) throws -> [[UInt8]] {
        let slot = try #require(SlotID(fileName: name))
        let key = try OuterKey(try #require(root.outerKey))
        let file = try FileIO.read(root.dataPath + "/" + name)
        let size = ContainerFormat.blockSize
        func block(_ position: Int) -> [UInt8] { Array(file[(position * size)..<((position + 1) * size)]) }
        let heads = ContainerFormat.superblockPositions.compactMap {
            Superblock.open(block($0), slot: slot, position: $0, key: key.superblockKey(slot: slot))
        }
        let newest = try #require(heads.map(\.generation).max())
        var versions = [[UInt8]]()
        for generation in 0...newest {
            let blockKey = key.blockKey(slot: slot, generation: generation)
            for position in ContainerFormat.firstData..<(file.count / size) {
                let address = BlockAddress(position: UInt32(position), generation: generation, kind: .data, level: 0, logicalID: 0)
                if let payload = try? OuterBlock.open(
                    block(position), key: blockKey,
                    associatedData: OuterBlock.associatedData(directory: directoryID, slot: slot, address: address)) {
                    versions.append(payload)
                }
            }
        }
        return versions
    }

    /// How many of `versions` (of slot `name`'s block 0) have a field that `prf` opens.
    static func opened(by prf: SecureBytes, _ versions: [[UInt8]], slotName name: String, directoryID: [UInt8]) throws -> Int {
        let slotID = try #require(SlotID(fileName: name)).bytes
        let end = PasskeyFormat.fieldsOffset + PasskeyFormat.fieldsLength
        return versions.filter { payload in
            PasskeySweep.run(prf: prf, directoryID: directoryID,
                             slots: [.init(slotID: slotID, fields: Array(payload[PasskeyFormat.fieldsOffset..<end]))]) != nil
        }.count
    }

    @Test func aRemovedPasskeyOpensNoBlockZeroLeftInTheSlot() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        let vault = try directory.createVault(password: pw("trace vault"), iterations: testIterations)
        defer { vault.lock() }
        let kept = SecureBytes(randomCount: 32), removed = SecureBytes(randomCount: 32)
        try vault.enrolPasskey(name: "Kept", password: pw("trace vault"), prf: kept, credential: VaultPasskeysTests.credential())
        try vault.enrolPasskey(name: "Removed", password: pw("trace vault"), prf: removed, credential: VaultPasskeysTests.credential())
        // Ordinary commits leave older block 0s in free positions, each sealing both fields.
        for i in 0..<3 { _ = try vault.addNote(title: "note \(i)", body: "in layout B") }
        let directoryID = try directory.store.directoryID()
        let name = vault.slotName
        let before = try Self.blockZeroVersions(root, slotName: name, directoryID: directoryID)
        #expect(try Self.opened(by: removed, before, slotName: name, directoryID: directoryID) >= 1, "the scan finds the live field")

        try vault.removePasskey(named: "Removed", password: pw("trace vault"))
        let after = try Self.blockZeroVersions(root, slotName: name, directoryID: directoryID)
        #expect(!after.isEmpty)
        #expect(try Self.opened(by: removed, after, slotName: name, directoryID: directoryID) == 0)
        #expect(try Self.opened(by: kept, after, slotName: name, directoryID: directoryID) >= 1)
        // Nor does any other slot hold a block 0 it opens: its wrap key names this slot.
        for other in try root.slotNames() where other != name {
            let versions = try Self.blockZeroVersions(root, slotName: other, directoryID: directoryID)
            #expect(try Self.opened(by: removed, versions, slotName: other, directoryID: directoryID) == 0)
        }
    }

    /// The same removal with its cover refused: the change stands and says it owes the
    /// cover, the old block 0 still opens with the removed passkey's PRF output, and the
    /// next whole commit takes it away. So the check above can fail, and it is the cover
    /// that makes it pass.
    @Test func withoutItsCoverARemovalLeavesTheFieldUntilTheNextWholeCommit() throws {
        let harness = try CrashFixture()
        let password = pw("a pw")
        let removed = SecureBytes(randomCount: 32)
        try harness.a.enrolPasskey(name: "Counted", password: password, prf: SecureBytes(randomCount: 32),
                                   credential: VaultPasskeysTests.credential())
        try harness.a.enrolPasskey(name: "Removed", password: password, prf: removed, credential: VaultPasskeysTests.credential())
        // A removal's steps, and the whole commit's, counted on a removal of the same shape.
        let steps = CredentialCommitFailureTests.Steps(harness)
        try harness.a.removePasskey(named: "Counted", password: password)
        let removal = steps.count
        steps.count = 0
        try harness.directory.store.commit(.init())
        let beforeCover = removal - steps.count
        steps.count = 0
        steps.refused = { $0 > beforeCover }
        try harness.a.removePasskey(named: "Removed", password: password)
        #expect(harness.a.credentialCoverOwed, "the refusal reached the cover: \(steps.count) steps of \(removal)")
        steps.refused = { _ in false }
        let name = harness.a.slotName
        harness.close()

        let directory = try harness.root.open(create: false)
        let directoryID = try directory.store.directoryID()
        let owed = try Self.blockZeroVersions(harness.root, slotName: name, directoryID: directoryID)
        #expect(try Self.opened(by: removed, owed, slotName: name, directoryID: directoryID) >= 1)
        #expect(try directory.sweepPasskey(prf: removed) == nil, "the current block 0 opens nothing")
        try directory.store.commit(.init())
        let covered = try Self.blockZeroVersions(harness.root, slotName: name, directoryID: directoryID)
        #expect(try Self.opened(by: removed, covered, slotName: name, directoryID: directoryID) == 0)
    }
}
