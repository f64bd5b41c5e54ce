import Foundation
import ObscuraCrypto
@testable import ObscuraStore

/// The states a crash could leave over a ``RecordingSlotFiles``: the container's crash
/// tests and the vault's (rotation, migration, paged commits) take them the same way.
package enum CrashImages {
    /// The images a crash could leave at this instant.
    package static func crashImages(_ files: RecordingSlotFiles, random: SeededRandom) -> [[String: [UInt8]]] {
        let count = files.unsynced.count
        let names = files.unsyncedNames.count
        var images = [[String: [UInt8]]]()
        let step = max(1, count / 12)
        for k in Set(Array(stride(from: 0, through: count, by: step)) + [count]).sorted() {
            images.append(files.crashImage(keep: Array(0..<k), names: names))
            if k > 0 {
                let size = files.unsynced[k - 1].bytes.count
                images.append(files.crashImage(keep: Array(0..<k), tornAt: min(512, size - 1), names: names))
                images.append(files.crashImage(keep: Array(0..<k), tornAt: random.uniform(in: 1..<size), names: names))
            }
        }
        for _ in 0..<6 where count > 0 {
            let subset = (0..<count).filter { _ in random.uniform(in: 0..<2) == 1 }
            images.append(files.crashImage(keep: random.shuffled(subset), tornAt: random.uniform(in: 1..<4096), names: names))
        }
        // Writeback that flushed every block but no superblock page, and the reverse.
        let superblockWrites = (0..<count).filter { files.unsynced[$0].offset < 2 * ContainerFormat.blockSize }
        images.append(files.crashImage(keep: (0..<count).filter { !superblockWrites.contains($0) }, names: names))
        images.append(files.crashImage(keep: superblockWrites, names: names))
        for j in 0..<names {
            images.append(files.crashImage(keep: Array(0..<count), names: j))
        }
        return images
    }

    /// Runs `operation` over `files` and returns its result with the crash images taken
    /// at each of its sync points.
    package static func imagesAtEverySync<T>(
        _ files: RecordingSlotFiles, random: SeededRandom, _ operation: (RecordingSlotFiles) throws -> T
    ) throws -> (T, [[String: [UInt8]]]) {
        var images = [[String: [UInt8]]]()
        files.beforeSync = { images += Self.crashImages($0, random: random) }
        defer { files.beforeSync = nil }
        let result = try operation(files)
        return (result, images)
    }
}
