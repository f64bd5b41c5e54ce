import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import ObscuraStore
#endif

/// The temporary an export is written to before it is renamed to the name asked for:
/// `NAME.partial-PID-RANDOM`, beside NAME, where PID is the writer's process id in
/// decimal and RANDOM 8 lower-case hex digits (docs/FORMAT.md §7). The writer holds an
/// exclusive `flock` on it from just after creating it until it is renamed.
///
/// A killed export leaves its partial behind. The next export to the same NAME removes
/// the partials of NAME whose writer is gone, which it tells by both marks: the process
/// PID no longer exists, and the file's lock is free. Either alone could be wrong: a
/// pid is reused, or belongs to another pid namespace; a lock is taken a moment after
/// the file is created. Anything else, another name's partials or files that merely look
/// alike, is left alone.
enum ExportPartial {
    /// The separator between NAME and the writer's marks.
    static let marker = ".partial-"
    /// The length of RANDOM.
    static let randomLength = 8

    /// A new partial path for an export to `target`, naming this process.
    static func path(for target: String) -> String {
        let random = (0..<randomLength).map { _ in String(UInt8.random(in: 0..<16), radix: 16) }.joined()
        return target + marker + "\(getpid())-" + random
    }

    /// Takes the lock that marks `fd`, a partial just created, as being written, and
    /// returns a second descriptor that keeps it (a lock belongs to the open file, not to
    /// one descriptor): the writer closes `fd` before it renames, and closes this one
    /// after.
    static func markLive(_ fd: Int32, path: String) throws -> Int32 {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw StorageError.io(path, errno) }
        let holder = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard holder >= 0 else { throw StorageError.io(path, errno) }
        return holder
    }

    /// Removes the partials of `target` that no live writer holds; returns how many.
    @discardableResult
    static func removeStale(for target: String) -> Int {
        let directory = (target as NSString).deletingLastPathComponent
        let prefix = (target as NSString).lastPathComponent + marker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            guard let pid = writer(ofMarks: name.dropFirst(prefix.count)), !isRunning(pid) else { continue }
            let path = (directory.isEmpty ? "" : directory + "/") + name
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// The pid in `marks` when they are exactly `PID-RANDOM`, else nil.
    static func writer(ofMarks marks: Substring) -> pid_t? {
        let parts = marks.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == randomLength,
              parts[1].utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              !parts[0].isEmpty, parts[0].count <= 10, parts[0].utf8.allSatisfy({ (48...57).contains($0) }),
              let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }

    /// Whether a process `pid` exists (one of another user's counts: EPERM).
    static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
