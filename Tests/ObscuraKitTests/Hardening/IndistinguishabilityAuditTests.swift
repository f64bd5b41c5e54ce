import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// Issue #6 item 7: three real vaults of very different sizes and histories and seven
/// decoys, compared on every property of a slot file an observer of the directory can
/// measure, in one snapshot and between snapshots taken around a write and around a
/// read. Every measure is tested for separating real from decoy slots better than chance
/// (``SeparationTest``) over several independently built directories.
///
/// One measure is known to separate, and is a documented non-guarantee
/// (docs/SECURITY.md): around a write, the written slot is the one whose header and
/// catalog bytes changed, since the other vaults' keys are not at hand to re-seal them.
@Suite struct IndistinguishabilityAuditTests {
    static let suite = "indistinguishability"

    /// One directory: snapshots before a write, after it, and after a read-only session.
    struct Trial {
        var before: [SlotObservation], afterWrite: [SlotObservation], afterRead: [SlotObservation]
        var real: Set<String>
        /// Sealed-catalog end per slot: known to the audit (it holds the keys), not to an observer.
        var catalogEnd: [String: Int]
    }

    func buildTrial(_ t: Int) throws -> Trial {
        let root = try TestRoot()
        let directory = try root.initialized()
        let big = try directory.createVault(password: pw("big \(t)"), iterations: testIterations)
        let mid = try directory.createVault(password: pw("mid \(t)"), iterations: testIterations)
        let tiny = try directory.createVault(password: pw("tiny \(t)"), iterations: testIterations)
        // A fourth vault comes and goes: its slot is erased and replaced by a fresh decoy.
        try directory.destroy(try directory.createVault(password: pw("gone \(t)"), iterations: testIterations))
        var bigItems = [ItemRecord]()
        for i in 0..<6 { bigItems.append(try big.addRaw(SeededRandom(seed: "b\(t)-\(i)").bytes(3000 * (i + 1)), name: "b\(i)", thumbnail: [1])) }
        try big.deleteItems(bigItems.prefix(2).map(\.id))
        // Past the first size range (and for some trials the second): every slot must follow.
        try big.write("blob", String(repeating: "z", count: SlotSizing.base * (1 + t % 2) + 1000))
        try big.changePassword(to: pw("big2 \(t)"))
        let midItem = try mid.addRaw([1, 2, 3], name: "m")
        try mid.addRaw([4, 5], name: "n")
        try mid.changePassword(to: pw("mid2 \(t)"))
        try mid.deleteItems([midItem.id])
        try tiny.changePassword(to: pw("tiny2 \(t)"))
        try tiny.changePassword(to: pw("tiny3 \(t)"))
        let real = Set([big.slotName, mid.slotName, tiny.slotName])
        var catalogEnd = [String: Int]()
        let credential = DeviceSecretStore.credential(from: try root.secrets.load())
        for name in try root.slotNames() {
            let contents = try directory.store.read(name)
            let header = try SlotHeader.decode(contents)
            let key = try [pw("big2 \(t)"), pw("mid2 \(t)"), pw("tiny3 \(t)"), credential].lazy
                .compactMap { try? SlotCodec.unwrapKey(header: header, password: $0) }.first.unwrap()
            catalogEnd[name] = SlotFormat.headerSize + (try SlotCodec.sealedCatalogLength(contents: contents, header: header, key: key))
        }
        let before = try SlotObservation.all(in: root.dataPath)
        Thread.sleep(forTimeInterval: 0.01)
        try mid.write("after", "a small write")
        let afterWrite = try SlotObservation.all(in: root.dataPath)
        Thread.sleep(forTimeInterval: 0.01)
        // Reads only: a fresh unlock, decrypting everything, and an export.
        for vault in [big, mid, tiny] { vault.lock() }
        let reader = try directory.unlock(password: pw("big2 \(t)"))
        _ = try reader.verify()
        try reader.exportVault(to: root.path + "/x.obscura", password: pw("e"), iterations: 1)
        let afterRead = try SlotObservation.all(in: root.dataPath)
        return Trial(before: before, afterWrite: afterWrite, afterRead: afterRead, real: real, catalogEnd: catalogEnd)
    }

    /// A measure: a number per slot, from the trial and the slot's name.
    typealias Measure = (name: String, value: (Trial, String) -> Double, known: String?)

    static func observation(_ snapshot: [SlotObservation], _ name: String) -> SlotObservation? {
        snapshot.first { $0.name == name }
    }

    static var measures: [Measure] {
        func still(_ name: String, _ f: @escaping (SlotObservation) -> Double) -> Measure {
            (name, { trial, slot in observation(trial.before, slot).map(f) ?? .nan }, nil)
        }
        func region(_ name: String, _ f: @escaping (SlotObservation, Int) -> Double) -> Measure {
            (name, { trial, slot in observation(trial.before, slot).map { f($0, trial.catalogEnd[slot]!) } ?? .nan }, nil)
        }
        func change(_ name: String, read: Bool = false, known: String? = nil,
                    _ f: @escaping (SlotObservation, SlotObservation) -> Double) -> Measure {
            (name, { trial, slot in
                let (a, b) = read ? (trial.afterWrite, trial.afterRead) : (trial.before, trial.afterWrite)
                guard let x = observation(a, slot), let y = observation(b, slot) else { return .nan }
                return f(x, y)
            }, known)
        }
        let h = SlotFormat.headerSize
        let written = "written slot: only its header envelope and catalog change (docs/SECURITY.md, non-guarantees)"
        return [
            still("size") { $0.size }, still("allocated blocks") { $0.blocks },
            still("allocation slack") { $0.blocks * 512 - $0.size },
            still("access time") { $0.atime }, still("modification time") { $0.mtime },
            still("change time") { $0.ctime }, still("birth time") { $0.btime },
            still("inode number") { $0.inode }, still("directory listing order") { $0.listingPosition },
            still("file name") { Double(UInt32($0.name.prefix(8), radix: 16) ?? 0) },
            still("header magic/version/suite/iterations") { o in o.bytes[0..<12].reduce(0.0) { $0 * 256 + Double($1) } },
            still("header salt mean") { ByteStatistics.mean($0.bytes[12..<44]) },
            still("header wrapped-key mean") { ByteStatistics.mean($0.bytes[44..<104]) },
            still("header envelope mean") { ByteStatistics.mean($0.bytes[104..<140]) },
            still("header checksum mean") { ByteStatistics.mean($0.bytes[140..<172]) },
            still("header chi-square") { ByteStatistics.chiSquare($0.bytes[12..<h]) },
            still("whole file chi-square") { ByteStatistics.chiSquare($0.bytes[h...]) },
            still("whole file entropy") { ByteStatistics.entropy($0.bytes[h...]) },
            still("whole file mean, z") { ByteStatistics.meanZ($0.bytes[h...]) },
            still("first 64 KiB after header chi-square") { ByteStatistics.chiSquare($0.bytes[h..<(h + 65536)]) },
            still("last 64 KiB chi-square") { ByteStatistics.chiSquare($0.bytes[($0.bytes.count - 65536)...]) },
            // Regions of different lengths: only statistics whose distribution for random
            // bytes does not depend on the length (entropy's bias does, so it is left out).
            region("sealed catalog chi-square") { o, end in ByteStatistics.chiSquare(o.bytes[h..<end]) },
            region("sealed catalog mean, z") { o, end in ByteStatistics.meanZ(o.bytes[h..<end]) },
            region("padding chi-square") { o, end in ByteStatistics.chiSquare(o.bytes[end...]) },
            region("padding mean, z") { o, end in ByteStatistics.meanZ(o.bytes[end...]) },
            change("write: bytes changed", known: written) { ByteStatistics.changed($0.bytes, $1.bytes) },
            change("write: header bytes changed", known: written) { ByteStatistics.changed(Array($0.bytes[0..<h]), Array($1.bytes[0..<h])) },
            change("write: padding bytes changed", known: written + "; its padding is drawn afresh, which hides its catalog length") { a, b in ByteStatistics.changed(Array(a.bytes.suffix(65536)), Array(b.bytes.suffix(65536))) },
            change("write: size change") { $1.size - $0.size }, change("write: inode kept") { $0.inode == $1.inode ? 1 : 0 },
            change("write: new inode number") { $1.inode }, change("write: mtime") { $1.mtime },
            change("write: ctime") { $1.ctime }, change("write: birth time") { $1.btime },
            change("read: access time change", read: true) { $1.atime - $0.atime },
            change("read: bytes changed", read: true) { ByteStatistics.changed($0.bytes, $1.bytes) },
            change("read: change time change", read: true) { $1.ctime - $0.ctime },
        ]
    }

    @Test func noMeasureSeparatesRealFromDecoy() throws {
        let trials = try (0..<Hardening.scale(3, full: 24)).map(buildTrial)
        let alpha = 0.05 / Double(Self.measures.count)
        var separating = [String]()
        for measure in Self.measures {
            let samples = trials.map { trial in
                let names = trial.before.map(\.name).sorted()
                return SeparationTest.Trial(values: names.map { measure.value(trial, $0) }, isReal: names.map(trial.real.contains))
            }
            #expect(samples.allSatisfy { $0.values.count == 10 && !$0.values.contains(where: \.isNaN) }, "\(measure.name)")
            let result = SeparationTest.evaluate(samples)
            let separates = result.separates(alpha: alpha)
            Hardening.report(Self.suite, measure.name, [
                "trials": result.trials, "z": String(format: "%.2f", result.z), "p-rank-sum": String(format: "%.3g", result.pRankSum),
                "reals-together": "\(result.together)/\(result.trials)", "p-together": String(format: "%.3g", result.pTogether),
                "separates": separates ? (measure.known == nil ? "YES" : "yes (known)") : "no",
            ])
            if separates && measure.known == nil { separating.append(measure.name) }
        }
        #expect(separating.isEmpty, "measures that tell real slots from decoys: \(separating)")
    }
}

private extension Optional {
    func unwrap() throws -> Wrapped {
        guard let self else { throw VaultError.corrupt("no key opens the slot") }
        return self
    }
}
