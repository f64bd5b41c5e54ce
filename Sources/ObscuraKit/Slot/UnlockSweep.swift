import Dispatch
import ObscuraCrypto

/// The fixed-sweep unlock (DESIGN.md, Hidden Vaults): a password is tried against every
/// slot, with no early return, spread over all cores; the caller decides from the
/// collected results.
enum UnlockSweep {
    /// Tries each of `passwords` against every readable header and returns, per password,
    /// the indices of the headers it opened with the unwrapped MEKs.
    ///
    /// Every (header, password) pair costs one full key derivation, whether or not an
    /// earlier pair matched, so the sweep takes the same time whichever slot holds the
    /// vault. Headers that failed to parse are skipped; that depends only on the files.
    static func run(headers: [SlotHeader?], passwords: [SecureBytes]) -> [[Int: SecureBytes]] {
        let pairs = headers.indices.flatMap { h in passwords.indices.map { (h, $0) } }
        let results = ResultBox(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { n in
            let (h, p) = pairs[n]
            guard let header = headers[h] else { return }
            // A wrong key is the expected outcome for most pairs; it is recorded as nil.
            let key = try? SlotCodec.unwrapKey(header: header, password: passwords[p])
            results.set(n, key)
        }
        var matches = [[Int: SecureBytes]](repeating: [:], count: passwords.count)
        for (n, (h, p)) in pairs.enumerated() {
            if let key = results.get(n) { matches[p][h] = key }
        }
        return matches
    }
}

/// Slots written by concurrent workers, one index each.
private final class ResultBox: @unchecked Sendable {
    // @unchecked: each index is written by exactly one worker, and read after all finish.
    private var values: [SecureBytes?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ v: SecureBytes?) { values.withUnsafeMutableBufferPointer { $0[i] = v } }
    func get(_ i: Int) -> SecureBytes? { values[i] }
}
