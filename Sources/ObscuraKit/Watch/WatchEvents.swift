import Foundation

/// What the kernel says changed in the watched folders (docs/PHONE.md §W2.2): on Linux,
/// inotify, one watch per directory. Events never decide that a file is complete or new,
/// the scan does; they only make the next scan come sooner, and mark a file that arrived
/// by a rename (a sync tool's end of writing) for the short settle window. Where no
/// watch can be had (another system, `max_user_watches` spent, a network or FUSE file
/// system whose writers are elsewhere), the watcher scans on its timer alone.
final class WatchEvents {
    #if os(Linux)
    private let fd: Int32
    /// The directories watched: watch descriptor → folder index and path under it.
    private var watches: [Int32: (folder: Int, path: [UInt8])] = [:]
    /// Directories already watched, by folder and path, to add each once.
    private var watched: Set<[UInt8]> = []
    #endif
    /// Whether watches could not be added for some directory (the timer covers it).
    private(set) var incomplete = false

    /// An event source, or nil where the system gives none.
    init?() {
        #if os(Linux)
        fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        #else
        return nil
        #endif
    }

    deinit {
        #if os(Linux)
        close(fd)
        #endif
    }

    /// Watches the directory open at `directory`, `path` under folder `folder` (each
    /// directory once). Through `/proc/self/fd`, so that no path is resolved again.
    func watch(_ directory: Int32, folder: Int, path: [UInt8]) {
        #if os(Linux)
        let key = [UInt8(truncatingIfNeeded: folder)] + path
        guard !watched.contains(key) else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB
                           | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        let descriptor = inotify_add_watch(fd, "/proc/self/fd/\(directory)", mask)
        guard descriptor >= 0 else {
            incomplete = true
            return
        }
        watched.insert(key)
        watches[descriptor] = (folder, path)
        #endif
    }

    /// Waits at most `seconds` for events; returns whether any came, and the files (by
    /// folder and path) that arrived by a rename.
    func wait(seconds: Double) -> (changed: Bool, renamedInto: [(folder: Int, path: [UInt8])]) {
        #if os(Linux)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, seconds * 1000)))
        guard ready > 0 else { return (false, []) }
        var renamed: [(Int, [UInt8])] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard n > 0 else { break }
            var at = 0
            // struct inotify_event: wd (4), mask (4), cookie (4), len (4), name (len, NUL padded).
            while at + 16 <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: at, as: Int32.self), raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
                }
                let name = Array(buffer[(at + 16)..<min(n, at + 16 + length)].prefix { $0 != 0 })
                if mask & UInt32(IN_IGNORED) != 0, let gone = watches.removeValue(forKey: wd) {
                    watched.remove([UInt8(truncatingIfNeeded: gone.folder)] + gone.path)
                } else if mask & UInt32(IN_MOVED_TO) != 0, let place = watches[wd], !name.isEmpty {
                    renamed.append((place.folder, place.path.isEmpty ? name : place.path + [UInt8(ascii: "/")] + name))
                }
                at += 16 + length
            }
        }
        return (true, renamed)
        #else
        usleep(useconds_t(max(0, seconds) * 1_000_000))
        return (false, [])
        #endif
    }
}
