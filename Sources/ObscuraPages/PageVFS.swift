import CObscuraPageVFS
import Foundation

/// The "obscura-pages" VFS's Swift half: the registry of open catalogs by name and the C
/// callbacks that forward SQLite's file calls to their ``PagedFile``.
enum PageVFS {
    /// The VFS name SQLite knows (CObscuraPageVFS.h).
    static let name = "obscura-pages"

    /// Registers the VFS once per process; later calls return the first result.
    static func register() throws {
        guard registration == 0 /* SQLITE_OK */ else {
            throw PagesError.unsupported("SQLite refused to register the page VFS (code \(registration))")
        }
    }

    /// The files SQLite may open, by name; the catalog adds and removes its own.
    private static let registry = Registry()

    /// Makes `file` openable under a fresh unique name and returns the name.
    static func attach(_ file: PagedFile) -> String {
        let name = "obscura-pages-\(UUID().uuidString)"
        registry.set(name, file)
        return name
    }

    /// Forgets `name`: SQLite can no longer open it (an open connection keeps its file).
    static func detach(_ name: String) { registry.set(name, nil) }

    /// Opens are refused for anything but a known main database; tests read this count.
    static var refusedOpens: UInt64 { UInt64(obscura_page_vfs_refused_opens()) }

    private static let registration: Int32 = {
        let callbacks = obscura_page_vfs_callbacks(
            open: { name in
                guard let file = registry.get(String(cString: name)) else { return nil }
                // One connection per file: a second open would share the stage.
                let free = file.lock.withLock { () -> Bool in
                    defer { file.isOpen = true }
                    return !file.isOpen
                }
                return free ? Unmanaged.passRetained(file).toOpaque() : nil
            },
            read: { context, buffer, amount, offset in
                let file = PageVFS.file(context)
                var complete = true
                let status = file.vfsCall(breaksOnFailure: false) {
                    complete = try file.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(amount)),
                                             offset: Int(offset))
                    return Int32(OBSCURA_PAGE_OK)
                }
                return status == Int32(OBSCURA_PAGE_OK) && !complete ? Int32(OBSCURA_PAGE_SHORT_READ) : status
            },
            write: { context, buffer, amount, offset in
                let file = PageVFS.file(context)
                return file.vfsCall(breaksOnFailure: true) {
                    try file.write(UnsafeRawBufferPointer(start: buffer, count: Int(amount)), offset: Int(offset))
                    return Int32(OBSCURA_PAGE_OK)
                }
            },
            truncate: { context, size in
                let file = PageVFS.file(context)
                return file.vfsCall(breaksOnFailure: true) {
                    try file.truncate(to: Int(size))
                    return Int32(OBSCURA_PAGE_OK)
                }
            },
            sync: { context in
                let file = PageVFS.file(context)
                return file.vfsCall(breaksOnFailure: true) {
                    try file.sync()
                    return Int32(OBSCURA_PAGE_OK)
                }
            },
            file_size: { context, size in
                let file = PageVFS.file(context)
                return file.vfsCall(breaksOnFailure: false) {
                    size.pointee = Int64(file.stagedCount * PagesFormat.pageSize)
                    return Int32(OBSCURA_PAGE_OK)
                }
            },
            close: { context in
                let unmanaged = Unmanaged<PagedFile>.fromOpaque(context)
                let file = unmanaged.takeUnretainedValue()
                // Whatever was staged and never synced is dropped, never committed.
                file.lock.withLock {
                    file.staged = [:]
                    file.stagedCount = file.root.pageCount
                    file.isOpen = false
                }
                unmanaged.release()
            })
        return obscura_page_vfs_register(callbacks)
    }()

    private static func file(_ context: UnsafeMutableRawPointer) -> PagedFile {
        Unmanaged<PagedFile>.fromOpaque(context).takeUnretainedValue()
    }

    private final class Registry: @unchecked Sendable {
        // @unchecked: `files` is used under `lock` only.
        private let lock = NSLock()
        private var files: [String: PagedFile] = [:]

        func get(_ name: String) -> PagedFile? { lock.withLock { files[name] } }
        func set(_ name: String, _ file: PagedFile?) { lock.withLock { files[name] = file } }
    }
}
