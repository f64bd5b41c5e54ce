/// Misuse of ``ZipStream``: each is a bug in its caller or a file that changed size while
/// it streamed, and the archive under way must be abandoned, never finished.
enum ZipError: Error, Equatable {
    /// An entry was begun while another was still open, or data came with none open.
    case entryState
    /// The entry's bytes did not add up to the size it was begun with.
    case sizeMismatch(expected: UInt64, written: UInt64)
    /// A name longer than the 65,535 bytes its length field can count.
    case nameTooLong
    /// The archive was already finished.
    case finished
}
