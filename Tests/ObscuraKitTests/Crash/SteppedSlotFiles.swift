import Foundation
import ObscuraStore

/// ``SlotFiles`` over a real directory that calls `step` before each change it makes
/// (a write, a sync, a truncation, a creation, a rename, a removal): the crash harness's
/// steps inside a version 4 commit (``CrashHarness``), beside the pool's and the
/// export's ``WriteStep``s. A throw from `step` fails the change there, as a process
/// killed at that instant leaves it. Power loss, which also drops what was written but
/// not synced, is ContainerVaultCrashTests' (the recorded crash images).
final class SteppedSlotFiles: SlotFiles {
    private let base: DiskSlotFiles
    private let step: () throws -> Void

    init(path: String, step: @escaping () throws -> Void) {
        base = DiskSlotFiles(path: path)
        self.step = step
    }

    func names() throws -> [String] { try base.names() }
    func size(_ name: String) throws -> Int { try base.size(name) }
    func read(_ name: String, at offset: Int, count: Int) throws -> [UInt8] { try base.read(name, at: offset, count: count) }
    func modificationTime(_ name: String) throws -> UInt64 { try base.modificationTime(name) }

    func write(_ name: String, at offset: Int, _ bytes: [UInt8]) throws {
        try step()
        try base.write(name, at: offset, bytes)
    }

    func sync(_ names: [String]) throws {
        try step()
        try base.sync(names)
    }

    func truncate(_ name: String, to size: Int) throws {
        try step()
        try base.truncate(name, to: size)
    }

    func create(_ name: String, _ bytes: [UInt8]) throws {
        try step()
        try base.create(name, bytes)
    }

    func rename(_ from: String, to: String) throws {
        try step()
        try base.rename(from, to: to)
    }

    func remove(_ name: String) throws {
        try step()
        try base.remove(name)
    }

    func syncDirectory() throws {
        try step()
        try base.syncDirectory()
    }

    func setTimes(_ name: String, to time: UInt64) throws {
        try step()
        try base.setTimes(name, to: time)
    }
}
