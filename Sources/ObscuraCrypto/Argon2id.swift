import CArgon2
import Foundation

/// Argon2id's cost (RFC 9106 §3.1): memory, passes and lanes, packed into the 32-bit
/// cost word files store (docs/FORMAT.md §2, "Password KDF suites").
public struct Argon2idCost: Hashable, Sendable {
    /// Memory is 2^memoryExponent KiB: 16 is 64 MiB.
    public let memoryExponent: Int
    /// Passes over memory (Argon2's t).
    public let passes: Int
    /// Lanes (Argon2's p); each runs on its own thread.
    public let lanes: Int

    /// §2: the reader's bounds. Memory 8 KiB … 256 MiB: the upper bound keeps a damaged
    /// or hostile word from asking for more memory than a small machine has.
    public static let memoryExponents = 3...18
    /// §2: passes 1 … 10.
    public static let passRange = 1...10
    /// §2: memory × passes at most 3 · 2^18 KiB, four times the default's 64 MiB × 3, so
    /// that a damaged or hostile word cannot stall an unlock (a review's finding: 1 GiB
    /// and 10 passes took about 30 s a slot).
    public static let maximumWorkKiB = 3 << 18
    /// §2: lanes 1 … 16.
    public static let laneRange = 1...16

    /// RFC 9106 §4's second recommended option: 64 MiB, 3 passes, 4 lanes.
    public static let recommended = Argon2idCost(uncheckedExponent: 16, passes: 3, lanes: 4)

    /// A cost inside the reader's bounds, or nil. Argon2 also needs at least 8 KiB of
    /// memory per lane.
    public init?(memoryExponent: Int, passes: Int, lanes: Int) {
        guard Self.memoryExponents.contains(memoryExponent), Self.passRange.contains(passes),
              Self.laneRange.contains(lanes), (1 << memoryExponent) >= 8 * lanes,
              (1 << memoryExponent) * passes <= Self.maximumWorkKiB else { return nil }
        self.init(uncheckedExponent: memoryExponent, passes: passes, lanes: lanes)
    }

    private init(uncheckedExponent: Int, passes: Int, lanes: Int) {
        memoryExponent = uncheckedExponent
        self.passes = passes
        self.lanes = lanes
    }

    /// Reads the packed word: bytes (big-endian) memory exponent, passes, lanes, zero.
    public init?(word: UInt32) {
        guard word & 0xFF == 0 else { return nil }
        self.init(memoryExponent: Int(word >> 24), passes: Int((word >> 16) & 0xFF), lanes: Int((word >> 8) & 0xFF))
    }

    /// The packed word (§2).
    public var word: UInt32 { UInt32(memoryExponent) << 24 | UInt32(passes) << 16 | UInt32(lanes) << 8 }

    /// Memory in KiB (Argon2's m).
    public var memoryKiB: Int { 1 << memoryExponent }

    /// "64 MiB", "8 KiB".
    public var memoryDescription: String {
        memoryKiB >= 1024 ? "\(memoryKiB / 1024) MiB" : "\(memoryKiB) KiB"
    }
}

/// Argon2id through the reference library (libargon2), with a process-wide bound on the
/// memory its derivations hold at once.
public enum Argon2id {
    /// Derives 32 bytes from `password` and `salt` at `cost`, Argon2 version 0x13, with no
    /// secret and no associated data.
    ///
    /// The derivation waits until its memory fits under ``memoryBudgetKiB`` beside the
    /// others running: the unlock sweep derives for every slot at once, and ten slots at
    /// 64 MiB each on every core would otherwise ask a small machine for 640 MiB.
    public static func deriveKey(
        password: SecureBytes, salt: some Collection<UInt8>, cost: Argon2idCost
    ) throws -> SecureBytes {
        let saltBytes = Array(salt)
        let key = SecureBytes(count: PasswordKDF.outputSize)
        gate.acquire(cost.memoryKiB)
        defer { gate.release(cost.memoryKiB) }
        // libargon2 wipes its memory blocks before freeing them (its default).
        let status = password.withUnsafeBytes { pw in
            key.withUnsafeMutableBytes { out in
                saltBytes.withUnsafeBytes { s in
                    argon2id_hash_raw(
                        UInt32(cost.passes), UInt32(cost.memoryKiB), UInt32(cost.lanes),
                        pw.baseAddress, pw.count, s.baseAddress, s.count, out.baseAddress, out.count)
                }
            }
        }
        guard status == ARGON2_OK.rawValue else { throw CryptoError.keyDerivationFailed }
        return key
    }

    /// The most memory, in KiB, Argon2id derivations may hold at once in this process:
    /// a quarter of physical memory, at most 256 MiB (four derivations at 64 MiB). One
    /// derivation larger than the budget still runs, alone.
    public static let memoryBudgetKiB: Int = {
        let quarter = Int(ProcessInfo.processInfo.physicalMemory / 4 / 1024)
        return max(8, min(quarter, 256 * 1024))
    }()

    /// The most memory the gate has let derivations hold at once since the process
    /// started, for the benchmark and tests.
    package static var peakHeldKiB: Int { gate.peak }

    private static let gate = MemoryGate(budget: memoryBudgetKiB)
}

/// A counting gate on memory: `acquire` waits while what is held plus the request would
/// pass the budget, unless nothing is held.
private final class MemoryGate: @unchecked Sendable {
    private let condition = NSCondition()
    private let budget: Int
    private var held = 0
    private var highest = 0

    init(budget: Int) { self.budget = budget }

    var peak: Int {
        condition.lock()
        defer { condition.unlock() }
        return highest
    }

    func acquire(_ amount: Int) {
        condition.lock()
        while held > 0 && held + amount > budget { condition.wait() }
        held += amount
        highest = max(highest, held)
        condition.unlock()
    }

    func release(_ amount: Int) {
        condition.lock()
        held -= amount
        condition.broadcast()
        condition.unlock()
    }
}
