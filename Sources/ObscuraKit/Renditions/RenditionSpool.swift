import Foundation
import ObscuraCrypto
import ObscuraStore

/// Holds ffmpeg's output while a rendition is made, sealed, until its size is known.
///
/// A chunked file declares its plaintext size in its header, which every chunk
/// authenticates (docs/FORMAT.md §6.6), and ffmpeg writes to a pipe without saying how
/// much will come. So the output is first sealed into this spool under a key that exists
/// only in this process's memory, then read back and sealed into the pool. The spool's
/// file is unlinked as soon as it is created: no name points at it, a crash leaves
/// nothing behind, and what the disk held is ciphertext under a key already gone.
final class RenditionSpool {
    /// Plaintext bytes sealed per piece.
    static let pieceSize = 1 << 20

    private let fd: Int32
    private let path: String
    private let key: SecureBytes
    private var pending = [UInt8]()
    /// Each piece's plaintext length, in order.
    private var lengths: [Int] = []
    private var finished = false
    /// Plaintext bytes in the spool.
    private(set) var size: UInt64 = 0

    /// Creates the spool's file at `path` (a pool temporary) and unlinks it at once.
    init(path: String, random: RandomSource) throws {
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.io(path, errno) }
        unlink(path)
        self.path = path
        key = SecureBytes(randomCount: AESGCM.keySize, using: random)
        pending.reserveCapacity(Self.pieceSize)
    }

    deinit {
        close(fd)
        pending.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } }
    }

    /// Adds bytes at the end.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "append after finish")
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = min(Self.pieceSize - pending.count, rest.count)
            pending += rest.prefix(n)
            rest = rest.dropFirst(n)
            size += UInt64(n)
            if pending.count == Self.pieceSize { try seal(last: false) }
        }
    }

    /// Seals the last piece; nothing can be appended after.
    func finish() throws {
        try seal(last: true)
        finished = true
    }

    /// A source reading the spool back from its start, each piece authenticated.
    func source() -> ChunkedFileWriter.Source {
        precondition(finished, "read before finish")
        var piece: UInt64 = 0
        var offset: UInt64 = 0
        var plain = [UInt8]()
        var used = 0
        return { [self] buffer in
            if used == plain.count {
                plain.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } }
                guard piece < UInt64(lengths.count) else { return 0 }
                let sealedLength = lengths[Int(piece)] + AESGCM.tagSize
                var sealed = [UInt8](repeating: 0, count: sealedLength)
                let n = sealed.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, sealedLength, off_t(offset)) }
                guard n == sealedLength else { throw StorageError.io(path, n < 0 ? errno : EIO) }
                plain = [UInt8](repeating: 0, count: sealedLength - AESGCM.tagSize)
                try sealed.withUnsafeBytes { s in
                    try plain.withUnsafeMutableBytes { p in
                        try AESGCM.openDetached(s, key: key, nonce: ChunkedFormatV2.nonce(piece),
                                                authenticating: Self.associatedData(piece, last: piece == UInt64(lengths.count - 1)), into: p)
                    }
                }
                offset += UInt64(sealedLength)
                piece += 1
                used = 0
                if plain.isEmpty { return 0 }
            }
            let n = min(buffer.count, plain.count - used)
            plain.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[used..<used + n])) }
            used += n
            return n
        }
    }

    private func seal(last: Bool) throws {
        let sealed = try pending.withUnsafeBytes {
            try AESGCM.sealDetached($0, key: key, nonce: ChunkedFormatV2.nonce(UInt64(lengths.count)),
                                    authenticating: Self.associatedData(UInt64(lengths.count), last: last))
        }
        try sealed.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
        lengths.append(pending.count)
        pending.withUnsafeMutableBytes { if let base = $0.baseAddress { secureZero(base, $0.count) } }
        pending.removeAll(keepingCapacity: true)
    }

    /// A piece's index and whether it is the last: a spool cut short does not read back.
    private static func associatedData(_ index: UInt64, last: Bool) -> [UInt8] {
        var ad = [UInt8]()
        ad.appendBigEndian(index)
        ad.append(last ? 1 : 0)
        return ad
    }
}
