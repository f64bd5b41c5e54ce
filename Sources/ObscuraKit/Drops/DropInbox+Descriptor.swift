import Foundation
import ObscuraCrypto
import ObscuraStore

extension DropInbox {
    /// A file sealed from a descriptor into its reserved room in the inbox, not yet a blob
    /// of it: the caller checks that the file did not change while it was read, then
    /// places it (``DropReceiver/finish()``) or drops it (``DropReceiver/abandon()``).
    package struct SealedFile {
        /// The sealed blob, written whole, waiting to be placed.
        package let receiver: DropReceiver
        /// SHA-256 of the bytes sealed.
        package let sha256: [UInt8]
        /// How many bytes were sealed.
        package let size: UInt64
    }

    /// Seals the `size` bytes of the regular file open at `fd` as a drop to `code`, named
    /// `name`, into a temporary of the inbox whose room is reserved before a byte is
    /// written (docs/PHONE.md §W2.4 step 6, §W2.8). The file is read from its start through
    /// the descriptor it is given, which `obscura watch` opened with `O_NOFOLLOW` and
    /// checked: this never opens a path.
    ///
    /// - Parameter proceed: asked before every chunk read; throwing from it (the watcher's
    ///   stop, a broken read lease) abandons the seal.
    /// - Throws: ``DropError/inboxFull`` when the blob does not fit ``maximumBlobs`` (or
    ///   `blobLimit`) and ``maximumBytes``; ``DropError/tooLarge``; a size mismatch when
    ///   the file's length changed while it was read.
    package func seal(
        fd: Int32, name: String, size: UInt64, to code: DropCode, blobLimit: Int = maximumBlobs,
        using random: RandomSource = SystemRandom(), proceed: @escaping @Sendable () throws -> Void = {}
    ) throws -> SealedFile {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io(name, errno) }
        let hasher = LockedHasher()
        let read = ChunkedFileWriter.source(fd: fd, path: name)
        let source: ChunkedFileWriter.Source = { buffer in
            try proceed()
            let n = try read(buffer)
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            return n
        }
        var receiver: DropReceiver?
        var head: [UInt8] = []
        do {
            try DropBlob.seal(to: code, kind: .file, name: Vault.uploadName(name), contentSize: size, source: source,
                              using: random) { bytes in
                if let receiver { return try receiver.append(bytes) }
                // The first bytes are the blob's header: its room is reserved with them.
                head += bytes
                guard head.count >= ChunkedFormatV2.headerSize else { return }
                let opened = try receive(header: Array(head.prefix(ChunkedFormatV2.headerSize)), blobLimit: blobLimit)
                receiver = opened
                try head.withUnsafeBytes { try opened.append($0) }
            }
        } catch {
            receiver?.abandon()
            throw error
        }
        guard let receiver else { throw DropError.malformedBlob("no header was sealed") }
        return SealedFile(receiver: receiver, sha256: hasher.finalize(), size: size)
    }
}

/// A SHA-256 fed on the sealer's reading thread and read on the caller's after it ends.
private final class LockedHasher: @unchecked Sendable {
    private let lock = NSLock()
    private var hasher = SHA256Stream()

    func update(_ bytes: UnsafeRawBufferPointer) { lock.withLock { hasher.update(bytes) } }
    func finalize() -> [UInt8] { lock.withLock { hasher.finalize() } }
}
