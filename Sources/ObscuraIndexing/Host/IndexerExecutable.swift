import Foundation

/// Where `obscura-indexer` is, and whether it may run (docs/SEARCH.md §S3.4): beside the
/// running program, never on `PATH`; the file not a link, and it and every folder above it
/// owned by this user or by root and not writable by group or others (a sticky folder
/// such as /tmp excepted: there nobody else may rename what is ours), since whoever can
/// replace it receives every decrypted picture sent to it. The parent compares the file
/// it checked with what the started process runs (`/proc/PID/exe`).
public enum IndexerExecutable {
    /// The file's name.
    public static let name = "obscura-indexer"

    /// Which file was checked: its device and inode.
    public struct Identity: Sendable, Equatable {
        /// `st_dev`.
        public let device: UInt64
        /// `st_ino`.
        public let inode: UInt64
    }

    /// The indexer beside this process's executable, checked.
    ///
    /// - Throws: ``IndexerError/notFound(_:)`` or ``IndexerError/unsafe(_:)``.
    public static func located() throws -> (path: String, identity: Identity) {
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = (program as NSString).deletingLastPathComponent + "/" + name
        return (path, try check(path))
    }

    /// Checks `path` and every folder above it as ``located()`` does.
    @discardableResult
    public static func check(_ path: String) throws -> Identity {
        var file = stat()
        guard lstat(path, &file) == 0 else { throw IndexerError.notFound(path) }
        guard file.st_mode & S_IFMT == S_IFREG else { throw IndexerError.unsafe("\(path) is not a regular file") }
        try checkOwner(file, path, sticky: false)
        // The folders as they really are: a link among them is followed to what it names,
        // and that is what must be safe.
        guard let real = realpath((path as NSString).deletingLastPathComponent, nil) else { throw IndexerError.notFound(path) }
        var folder = String(cString: real)
        free(real)
        while true {
            var status = stat()
            guard lstat(folder, &status) == 0 else { throw IndexerError.notFound(path) }
            try checkOwner(status, folder, sticky: true)
            if folder == "/" { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return Identity(device: UInt64(file.st_dev), inode: UInt64(file.st_ino))
    }

    /// The file process `pid` runs.
    static func running(_ pid: pid_t) -> Identity? {
        var status = stat()
        guard stat("/proc/\(pid)/exe", &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    private static func checkOwner(_ status: stat, _ path: String, sticky: Bool) throws {
        guard status.st_uid == getuid() || status.st_uid == 0 else {
            throw IndexerError.unsafe("\(path) belongs to another user")
        }
        let writable = status.st_mode & (S_IWGRP | S_IWOTH) != 0
        guard !writable || (sticky && status.st_mode & S_ISVTX != 0) else {
            throw IndexerError.unsafe("\(path) may be changed by others")
        }
    }
}
