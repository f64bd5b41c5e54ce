import Foundation
import ObscuraCrypto

/// Seals and opens drop blobs (docs/FORMAT.md §10.3): a version 2 chunked file (§6.6)
/// whose salt field is the HPKE encapsulation, with its high bit drawn at random, and
/// whose root key is the HPKE exporter's secret.
///
/// A sender needs only the drop code; a recipient needs the vault's drop private key.
package enum DropBlob {
    /// Seals a drop of `kind` named `name`, whose `contentSize` content bytes `source`
    /// yields, to `code`, handing the blob's bytes to `sink` in order.
    package static func seal(
        to code: DropCode, kind: DropFormat.Kind, name: String, contentSize: UInt64,
        source: @escaping ChunkedFileWriter.Source, using random: RandomSource = SystemRandom(),
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard contentSize <= DropFormat.maximumContentSize else { throw DropError.tooLarge }
        try seal(to: code, envelope: DropFormat.envelope(kind: kind, name: name), contentSize: contentSize,
                 source: source, using: random, sink: sink)
    }

    /// Seals `envelope` (§10.4, as given: the vectors seal a bad one too) and the content
    /// `source` yields to `code`.
    package static func seal(
        to code: DropCode, envelope: [UInt8], contentSize: UInt64,
        source: @escaping ChunkedFileWriter.Source, using random: RandomSource,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let (enc, root) = try HPKEExporter.seal(
            to: code.publicKey, info: DropFormat.info, context: DropFormat.exportContext, length: AESGCM.keySize, using: random)
        var salt = enc
        // X25519 public keys never set this bit (RFC 7748 masks it); a random one keeps the
        // field from saying it holds a key more plainly than its curve structure does.
        salt[31] |= random.bytes(1)[0] & DropFormat.encHighBitMask
        let header = ChunkedHeader(
            flags: 0, salt: salt, chunkSize: DropFormat.chunkSize, totalSize: UInt64(envelope.count) + contentSize)
        let cipher = try ChunkCipher(header: header, key: root, folderKey: nil, context: DropFormat.context)
        try ChunkedFileWriter.write(cipher: cipher, hashing: false, source: prefixed(envelope, source), sink: sink)
    }

    /// A source that yields `prefix`, then what `rest` yields.
    private static func prefixed(_ prefix: [UInt8], _ rest: @escaping ChunkedFileWriter.Source) -> ChunkedFileWriter.Source {
        var offset = 0
        return { buffer in
            guard offset < prefix.count else { return try rest(buffer) }
            let n = min(buffer.count, prefix.count - offset)
            prefix.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
            offset += n
            return n
        }
    }

    /// The header of a well-formed drop blob, from its first bytes (``check(_:)``), whose
    /// file size is `size` when that is known (nil: a body of unknown length, checked as it
    /// arrives). Anything else is not a drop.
    static func checkedHeader(_ first: some Collection<UInt8>, size: UInt64?) throws -> ChunkedHeader {
        let header: ChunkedHeader
        do {
            header = try ChunkedHeader.decode(first)
        } catch {
            throw DropError.malformedBlob("header: \(error)")
        }
        try check(header)
        if let size, header.fileSize != size {
            throw DropError.malformedBlob("size \(size) is not the header's \(header.fileSize)")
        }
        return header
    }

    /// Refuses a header that is not a drop's (§10.3): a version 2 chunked header,
    /// unprotected, of the drop chunk size, whose content is within bounds.
    static func check(_ header: ChunkedHeader) throws {
        guard header.version == ChunkedFormatV2.version, header.flags == 0, header.chunkSize == DropFormat.chunkSize else {
            throw DropError.malformedBlob("not a version 2 unprotected chunked file of 256 KiB chunks")
        }
        guard header.totalSize >= UInt64(DropFormat.envelopeFixedSize),
              header.totalSize <= DropFormat.maximumContentSize + UInt64(DropFormat.envelopeFixedSize + DropFormat.maximumNameBytes)
        else { throw DropError.malformedBlob("content size out of range") }
    }

    /// The chunk cipher of a blob with `header` for `keyPair`: the HPKE decapsulation and
    /// export, the same work whether or not the blob is addressed to the key.
    static func cipher(for header: ChunkedHeader, keyPair: HPKEExporter.KeyPair) throws -> ChunkCipher {
        var enc = header.salt
        enc[31] &= ~DropFormat.encHighBitMask
        let root = try HPKEExporter.open(
            enc: enc, keyPair: keyPair, info: DropFormat.info, context: DropFormat.exportContext, length: AESGCM.keySize)
        return try ChunkCipher(header: header, key: root, folderKey: nil, context: DropFormat.context)
    }

    /// Whether the envelope at the start of `plain` is of a version or kind this reader
    /// does not know (§10.4): a newer writer's, left for a newer reader.
    static func isNewer(_ plain: [UInt8]) -> Bool {
        guard plain.count >= 2 else { return false }
        return plain[0] != DropFormat.envelopeVersion || DropFormat.Kind(rawValue: plain[1]) == nil
    }

    /// The envelope at the start of a drop's plaintext (§10.4): kind, name, and where the
    /// content starts; nil when malformed.
    static func envelope(_ plain: [UInt8]) -> (kind: DropFormat.Kind, name: String, contentOffset: Int)? {
        guard plain.count >= DropFormat.envelopeFixedSize, plain[0] == DropFormat.envelopeVersion,
              let kind = DropFormat.Kind(rawValue: plain[1]) else { return nil }
        let length = Int(plain[2]) << 8 | Int(plain[3])
        let end = DropFormat.envelopeFixedSize + length
        guard length <= DropFormat.maximumNameBytes, plain.count >= end,
              let name = String(validating: plain[DropFormat.envelopeFixedSize..<end], as: UTF8.self) else { return nil }
        return (kind, name, end)
    }
}
