import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Flips one byte of a file at a time, in place, runs a reader over the damaged file and
/// sorts the outcome (issue #6 item 3):
///
/// - **failed cleanly**: the reader threw;
/// - **harmless**: the reader returned exactly the undamaged result, and the byte is one
///   the format leaves unauthenticated on purpose (slot padding);
/// - **wrong plaintext** (recorded as a test failure): it returned anything else, or
///   returned for a byte that should have been authenticated.
///
/// A crash would end the test process, so a finished run also means no crash.
struct TamperFlipper {
    /// What one file's flips came to.
    struct Tally {
        var cases = 0
        var failedCleanly = 0
        var harmless = 0
        var wrong = 0

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(cases: a.cases + b.cases, failedCleanly: a.failedCleanly + b.failedCleanly,
                  harmless: a.harmless + b.harmless, wrong: a.wrong + b.wrong)
        }
    }

    let path: String

    /// Flips each byte of `offsets` (one bit, a different bit position per offset so all
    /// eight are exercised) and calls `read`, which returns whether its result equals
    /// the undamaged one. `mayBeHarmless` names offsets a reader is allowed to ignore.
    func run(
        offsets: [Int], label: String, mayBeHarmless: (Int) -> Bool = { _ in false },
        read: () throws -> Bool
    ) throws -> Tally {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var tally = Tally()
        for offset in offsets {
            var byte: UInt8 = 0
            guard pread(fd, &byte, 1, off_t(offset)) == 1 else { throw POSIXError(.EIO) }
            var flipped = byte ^ (1 << UInt8(offset % 8))
            guard pwrite(fd, &flipped, 1, off_t(offset)) == 1 else { throw POSIXError(.EIO) }
            defer { _ = pwrite(fd, &byte, 1, off_t(offset)) }
            tally.cases += 1
            let same: Bool
            do {
                same = try read()
            } catch {
                tally.failedCleanly += 1
                continue
            }
            if same && mayBeHarmless(offset) {
                tally.harmless += 1
            } else {
                tally.wrong += 1
                Issue.record("\(label): byte \(offset) flipped was accepted (\(same ? "same" : "different") result)")
            }
        }
        return tally
    }

    /// Every offset in `range`, or an even spread of `limit` of them when the range is
    /// larger: the first and last always, the others shifted by a fraction of the spacing
    /// drawn from the run's seed (``Hardening/seed``), so that successive CI runs flip
    /// different bytes between the same bounds and one seed repeats a run's bytes.
    static func offsets(_ range: Range<Int>, limit: Int) -> [Int] {
        guard range.count > limit, limit > 1 else { return Array(range) }
        let step = Double(range.count - 1) / Double(limit - 1)
        let shift = Double(SeededRandom(seed: "\(Hardening.seed)/tamper/\(range)").uniform(in: 0..<1024)) / 1024 - 0.5
        print("tamper: seed \(Hardening.seed) (OBSCURA_TEST_SEED) shifts the \(limit) offsets in \(range) by \(shift) of a step")
        return (0..<limit).map { i in
            let spot = i == 0 || i == limit - 1 ? Double(i) : Double(i) + shift
            return range.lowerBound + Int((spot * step).rounded())
        }
    }

    /// The size of the file.
    var size: Int {
        var st = stat()
        _ = stat(path, &st)
        return Int(st.st_size)
    }
}
