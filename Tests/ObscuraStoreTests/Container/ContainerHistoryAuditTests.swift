import Foundation
import ObscuraCrypto
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraStore

/// Indistinguishability across history (issue 14): an adversary without the outer key
/// keeps every version of every slot over a run of commits to three slots (changes,
/// growth, an added slot, a slot replaced as destroy replaces it). Whatever it compares,
/// the written slots and the others look the same.
@Suite struct ContainerHistoryAuditTests {
    typealias F = ContainerFixtures

    @Test func everyVersionOfEverySlotChangesAtTheSamePositions() throws {
        let (files, container, _) = try F.make()
        let real = Array(container.slots.prefix(3))
        let random = SeededRandom(seed: "history")
        var versions = [files.snapshot]
        let operations: [() throws -> Void] = [
            { try container.commit(replacing: [real[0]: random.bytes(9000)]) },
            { try container.commit(replacing: [real[1]: random.bytes(12_000)]) },
            { try container.commit(replacing: [real[2]: random.bytes(100)]) },
            { try container.commit(replacing: [real[0]: random.bytes(600_000)]) },   // growth
            { try container.commit(replacing: [real[1]: random.bytes(9000)]) },
            { _ = try container.commit(adding: [random.bytes(4000)]) },              // an 11th slot
            { try container.commit(replacing: [real[2]: random.bytes(9000)]) },      // destroy: a fresh decoy
            { try container.commit() },                                              // its cover commit
        ]
        for operation in operations {
            try operation()
            versions.append(files.snapshot)
        }
        for (before, after) in zip(versions, versions.dropFirst()) {
            let common = Set(before.keys).intersection(after.keys)
            let changes = common.map { F.changedBlocks(before[$0]!, after[$0]!) }
            #expect(Set(changes).count == 1, "slots changed at different blocks")
            #expect(Set(after.values.map(\.count)).count == 1, "slots of different sizes")
            // A new slot appears whole, at the size of the others.
            for name in Set(after.keys).subtracting(before.keys) {
                #expect(after[name]!.count == after[common.first!]!.count)
            }
        }
        // No block of any version is equal in two slots, or between the versions of a
        // changed position: every write is a fresh seal.
        let last = versions.last!
        var seen = Set<[UInt8]>()
        for bytes in last.values {
            for index in 0..<(bytes.count / ContainerFormat.blockSize) {
                let block = Array(bytes[(index * ContainerFormat.blockSize)..<((index + 1) * ContainerFormat.blockSize)])
                #expect(seen.insert(block).inserted)
            }
        }
    }
}
