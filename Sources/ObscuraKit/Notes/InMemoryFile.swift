import CObscuraSystem
import Foundation
import ObscuraStore

/// An anonymous file in memory (Linux `memfd_create`): no name in any file system, gone
/// when its last descriptor closes. `obscura note edit` hands one to `$EDITOR` as
/// `/dev/fd/N`, so a note's plaintext is edited without ever being written to disk
/// (issue 19: "Editing never leaves plaintext on disk").
///
/// The descriptor is inherited by children (no close-on-exec): that is how the editor
/// reaches it. This process is undumpable, so a child could not open its
/// `/proc/PID/fd/N`; the child opens its own `/dev/fd/N` instead.
public final class InMemoryFile {
    /// The file's descriptor, open for reading and writing.
    public let descriptor: Int32

    /// Makes an empty file named `name` (the name shows only in `/proc`, never on disk).
    ///
    /// - Throws: ``NoteError/noMemoryFile(_:)`` where the system has no `memfd_create`:
    ///   the caller must refuse rather than fall back to a file on disk.
    public init(name: String) throws {
        let fd = obscura_system_memfd_create(name)
        guard fd >= 0 else { throw NoteError.noMemoryFile(String(cString: strerror(errno))) }
        // memfd_create makes it 0777; an editor copies the mode to its backup and undo
        // files, should it write any.
        guard fchmod(fd, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw NoteError.noMemoryFile(reason)
        }
        descriptor = fd
    }

    deinit {
        // Zeroed before it goes: the pages of a memfd are freed on close, but an editor
        // may still hold it open for a moment.
        if let size = try? size(), size > 0 {
            let zeros = [UInt8](repeating: 0, count: min(size, 1 << 20))
            var offset = 0
            while offset < size {
                let n = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, min(zeros.count, size - offset), off_t(offset)) }
                if n <= 0 { break }
                offset += n
            }
        }
        ftruncate(descriptor, 0)
        close(descriptor)
    }

    /// The path by which a child process that inherits the descriptor opens the file.
    public var childPath: String { "/dev/fd/\(descriptor)" }

    /// Replaces the file's contents with `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        guard ftruncate(descriptor, 0) == 0 else { throw StorageError.io("in-memory file", errno) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, bytes.count - offset, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StorageError.io("in-memory file", errno) }
            offset += n
        }
    }

    /// The file's whole contents, as the editor left them.
    public func contents() throws -> [UInt8] {
        let size = try size()
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, size - offset, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw StorageError.io("in-memory file", errno) }
            if n == 0 { break }
            offset += n
        }
        return Array(bytes.prefix(offset))
    }

    private func size() throws -> Int {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { throw StorageError.io("in-memory file", errno) }
        return Int(st.st_size)
    }
}
