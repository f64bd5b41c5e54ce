import Dispatch
import ObscuraCrypto
import ObscuraStore

/// The fixed-sweep unlock (docs/FORMAT.md §3.5): a password is tried against every
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
        let results = ConcurrentResults<SecureBytes?>(count: pairs.count)
        DispatchQueue.concurrentPerform(iterations: pairs.count) { n in
            let (h, p) = pairs[n]
            // A wrong key is the expected outcome for most pairs; it is recorded as nil.
            let key = headers[h].flatMap { try? SlotCodec.unwrapKey(header: $0, password: passwords[p]) }
            results.set(n, .success(key))
        }
        var matches = [[Int: SecureBytes]](repeating: [:], count: passwords.count)
        // Every index was set to a success (nil or a key): a throw here is a broken invariant.
        for ((h, p), key) in zip(pairs, try! results.values()) {
            if let key { matches[p][h] = key }
        }
        return matches
    }
}
