import Foundation

/// Where `obscura-indexer` is, and whether it may run (docs/SEARCH.md §S3.4): beside the
/// running program, never on `PATH`; the file and its folder owned by this user or by
/// root, and neither writable by group or others, since whoever can replace it receives
/// every decrypted picture sent to it.
public enum IndexerExecutable {
    /// The file's name.
    public static let name = "obscura-indexer"

    /// The indexer beside this process's executable.
    ///
    /// - Throws: ``IndexerError/notFound(_:)`` or ``IndexerError/unsafe(_:)``.
    public static func located() throws -> String {
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = (program as NSString).deletingLastPathComponent + "/" + name
        try check(path)
        return path
    }

    /// Checks `path` and its folder as ``located()`` does.
    public static func check(_ path: String) throws {
        var file = stat()
        guard lstat(path, &file) == 0 else { throw IndexerError.notFound(path) }
        guard file.st_mode & S_IFMT == S_IFREG else { throw IndexerError.unsafe("\(path) is not a regular file") }
        try checkOwner(file, path)
        var folder = stat()
        let parent = (path as NSString).deletingLastPathComponent
        guard stat(parent, &folder) == 0 else { throw IndexerError.notFound(path) }
        try checkOwner(folder, parent)
    }

    private static func checkOwner(_ status: stat, _ path: String) throws {
        guard status.st_uid == getuid() || status.st_uid == 0 else {
            throw IndexerError.unsafe("\(path) belongs to another user")
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw IndexerError.unsafe("\(path) may be changed by others")
        }
    }
}
