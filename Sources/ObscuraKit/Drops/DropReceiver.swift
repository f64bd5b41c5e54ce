import Foundation
import ObscuraCrypto
import ObscuraStore

/// A drop blob being received from elsewhere (the drop page's post), written to the
/// inbox as its bytes arrive (docs/FORMAT.md §10.5), so that no more than one piece of it
/// is ever in memory, whatever its size.
///
/// Made by ``DropInbox/receive(header:length:blobLimit:)`` once the blob's header is checked: its
/// room in the inbox is reserved then (its temporary is sized to the whole blob at once,
/// and the inbox's bound counts temporaries), so that posts received together cannot each
/// pass a bound only one of them fits. ``finish()`` makes it a blob of the inbox; anything
/// else (an error, a post cut short, the receiver released) removes the temporary.
public final class DropReceiver: @unchecked Sendable {
    /// The blob's whole size, from its header.
    public let expectedSize: UInt64
    /// Bytes written so far, the header's included.
    public private(set) var received: UInt64 = 0
    private let inbox: DropInbox
    private let temporary: String
    private var fd: Int32

    fileprivate init(inbox: DropInbox, temporary: String, fd: Int32, expectedSize: UInt64) {
        self.inbox = inbox
        self.temporary = temporary
        self.fd = fd
        self.expectedSize = expectedSize
    }

    deinit { abandon() }

    /// Writes the next bytes of the blob.
    ///
    /// - Throws: ``DropError/malformedBlob(_:)`` past the size the header gives.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard fd >= 0 else { throw StorageError.io(temporary, EBADF) }
        guard UInt64(bytes.count) <= expectedSize - received else {
            throw DropError.malformedBlob("longer than the header's \(expectedSize) bytes")
        }
        var offset = 0
        while offset < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + offset, bytes.count - offset, off_t(received) + off_t(offset))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StorageError.io(temporary, errno) }
            offset += n
        }
        received += UInt64(bytes.count)
    }

    /// Makes the received blob one of the inbox's: fsynced, renamed to a new
    /// `{uuid}.data.enc`, the inbox synced. Returns its name.
    ///
    /// - Throws: ``DropError/malformedBlob(_:)`` when fewer bytes came than the header gives.
    public func finish() throws -> String {
        guard fd >= 0 else { throw StorageError.io(temporary, EBADF) }
        guard received == expectedSize else {
            throw DropError.malformedBlob("size \(received) is not the header's \(expectedSize)")
        }
        guard FileIO.flush(fd) == 0 else { throw StorageError.io(temporary, errno) }
        close(fd)
        fd = -1
        return try inbox.place(temporary)
    }

    /// Removes what was received; nothing is left of it. Safe to call more than once.
    public func abandon() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(temporary)
    }
}

extension DropInbox {
    /// Starts receiving a blob whose first bytes are `header` (its 52-byte chunked header,
    /// §10.3), after checking it; `length`, when the sender gave one, must be the size the
    /// header gives.
    ///
    /// - Throws: ``DropError/malformedBlob(_:)`` for a header that is not a drop's;
    ///   ``DropError/inboxFull`` when the blob would take the inbox past its bound.
    ///
    /// - Parameter blobLimit: the most blobs to leave in the inbox, at most
    ///   ``maximumBlobs`` (`obscura watch --inbox-limit`).
    public func receive(header: [UInt8], length: UInt64? = nil, blobLimit: Int = maximumBlobs) throws -> DropReceiver {
        guard header.count == ChunkedFormatV2.headerSize else { throw DropError.malformedBlob("header cut short") }
        let size = try DropBlob.checkedHeader(header, size: length).fileSize
        // The bound is checked and the room taken under one lock (see DropReceiver).
        return try Self.addLock.withLock {
            let (count, bytes) = usage()
            guard count < min(blobLimit, Self.maximumBlobs), bytes + Int64(size) <= Self.maximumBytes else { throw DropError.inboxFull }
            try makeDirectory()
            let temporary = path + "/" + MediaPool.temporaryPrefix + UUID().uuidString.lowercased()
            let fd = try FileIO.openOrThrow(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard ftruncate(fd, off_t(size)) == 0 else {
                let error = StorageError.io(temporary, errno)
                close(fd)
                unlink(temporary)
                throw error
            }
            return DropReceiver(inbox: self, temporary: temporary, fd: fd, expectedSize: size)
        }
    }
}
