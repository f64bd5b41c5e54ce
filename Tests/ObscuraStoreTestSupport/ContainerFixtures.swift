import Foundation
import ObscuraCrypto
@testable import ObscuraStore

/// Shared set-up for the container tests: a fixed outer key, distinct streams per slot,
/// and a reader of every slot's stream.
package enum ContainerFixtures {
    package static let outerKey = SecureBytes(copying: [UInt8](repeating: 0x5A, count: 32))
    package static func key() throws -> OuterKey { try OuterKey(outerKey) }

    /// `count` streams of `size` random bytes, each different.
    package static func streams(_ count: Int, size: Int = 9000, seed: String = "streams") -> [[UInt8]] {
        let random = SeededRandom(seed: seed)
        return (0..<count).map { _ in random.bytes(size) }
    }

    /// A container of `count` slots in memory, with its files and the streams it holds.
    package static func make(slots count: Int = 10, size: Int = 9000) throws -> (RecordingSlotFiles, SlotContainer, [SlotID: [UInt8]]) {
        let files = RecordingSlotFiles()
        let contents = streams(count, size: size)
        let container = try SlotContainer.create(files: files, key: key(), streams: contents)
        var bySlot = [SlotID: [UInt8]]()
        for slot in container.slots {
            let stream = try container.readStream(slot)
            bySlot[slot] = contents.first { stream.starts(with: $0) }
        }
        return (files, container, bySlot)
    }

    /// Every slot's stream, cut to the length the test knows for it.
    package static func contents(_ container: SlotContainer, lengths: [SlotID: Int]) throws -> [SlotID: [UInt8]] {
        var out = [SlotID: [UInt8]]()
        for slot in container.slots {
            out[slot] = try container.readStream(slot, count: lengths[slot] ?? 0)
        }
        return out
    }

    /// Physical blocks that differ between two versions of a file.
    package static func changedBlocks(_ a: [UInt8], _ b: [UInt8]) -> Set<Int> {
        let size = ContainerFormat.blockSize
        var out = Set<Int>()
        for index in 0..<(max(a.count, b.count) / size) {
            let range = (index * size)..<((index + 1) * size)
            if range.upperBound > a.count || range.upperBound > b.count || a[range] != b[range] { out.insert(index) }
        }
        return out
    }
}
