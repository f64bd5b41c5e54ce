/// What can go wrong between the parent and its indexer (docs/SEARCH.md §S3.4). No case
/// carries an item's bytes or text.
public enum IndexerError: Error, Equatable, CustomStringConvertible {
    /// No `obscura-indexer` beside this program.
    case notFound(String)
    /// The indexer's file or folder may be changed by someone else (§S3.4): not run.
    case unsafe(String)
    /// posix_spawn failed with this errno.
    case spawnFailed(Int32)
    /// A frame broke §S3.4.3's rules; the worker was killed. Counted, for the item in
    /// flight, as a crash by SIGSYS (§S7.2).
    case violation(String)
    /// The worker did not answer within its deadline and was killed.
    case timedOut
    /// The worker ended on its own: exit status, or signal number.
    case ended(status: Int32, signal: Int32)
    /// The worker was stopped (by lock, or after an earlier failure).
    case stopped
    /// The worker could not load what `load` named.
    case loadFailed(UInt8)

    /// A sentence for the log and the status, without any item's bytes or text.
    public var description: String {
        switch self {
        case let .notFound(path): "the indexer is not installed at \(path)"
        case let .unsafe(why): "the indexer was not run: \(why)"
        case let .spawnFailed(code): "the indexer could not be started (errno \(code))"
        case let .violation(why): "the indexer broke its protocol (\(why)) and was stopped"
        case .timedOut: "the indexer did not answer in time and was stopped"
        case let .ended(status, signal):
            signal != 0 ? "the indexer ended by signal \(signal)" : "the indexer exited with status \(status)"
        case .stopped: "the indexer was stopped"
        case let .loadFailed(code):
            code == LoadStatus.unavailable.rawValue
                ? "the OCR languages asked for (or the orientation model) are not installed"
                : "the indexer could not load its engines"
        }
    }
}
