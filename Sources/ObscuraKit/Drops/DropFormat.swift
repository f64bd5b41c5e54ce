import ObscuraCrypto

/// The constants of a drop (docs/FORMAT.md §10): a file sealed to a vault's drop key by
/// someone who holds only its public drop code.
///
/// A drop blob is laid out as a version 2 pool original (§6.6) whose salt field carries
/// the HPKE encapsulation and whose root key is exported from HPKE instead of being the
/// MEK: its name and size say what a pool file's say, and the chunked code streams it.
public enum DropFormat {
    /// §10.2: HPKE's `info`, binding every drop to this use and version.
    package static let info = Array("obscura drop v1".utf8)
    /// §10.2: the HPKE exporter context of the payload's root key.
    package static let exportContext = Array("obscura drop v1 payload".utf8)
    /// §10.3: chunk size, the pool's (§6.2).
    package static let chunkSize = 262_144
    /// §10.3: the chunks' context, empty: the inbox name is the server's choice, not the sender's.
    static let context: [UInt8] = []
    /// §10.3: bit 7 of byte 31 of the salt field is random; a reader clears it to get enc.
    package static let encHighBitMask: UInt8 = 0x80
    /// §10.4: the envelope version byte.
    static let envelopeVersion: UInt8 = 1
    /// §10.4: bytes before the name: version, kind, UInt16BE name length.
    static let envelopeFixedSize = 4
    /// §10.4: the longest name, in UTF-8 bytes.
    public static let maximumNameBytes = 255
    /// §10.5: the shared inbox directory in the vault directory.
    public static let inboxDirectory = "inbox"
    /// §10.5: the largest drop content a writer seals and a server accepts (the importer's
    /// own bound on a video is the same order; a drop is meant for a photo, a video or a note).
    public static let maximumContentSize: UInt64 = 4 << 30
    /// §10.3: the size of the blob of a drop of `contentSize` bytes with the longest name
    /// (§10.4): 52 + P + 16·max(1, ⌈P / 262144⌉), P the content with its envelope. What a
    /// receiver allows for a post, and what a watcher needs room for in the inbox.
    public static func blobSize(contentSize: Int64) -> Int64 {
        let plain = contentSize + Int64(envelopeFixedSize) + Int64(maximumNameBytes)
        let chunk = Int64(chunkSize)
        return Int64(ChunkedFormatV2.headerSize) + plain + 16 * max(1, (plain + chunk - 1) / chunk)
    }

    /// §10.1: the setting that holds a vault's drop private key, in hex.
    static let keySetting = "drop.privateKey"

    /// §10.4: what a drop holds.
    public enum Kind: UInt8, Sendable {
        /// A file, taken in like an upload (a photo, a video, a RAW...).
        case file = 1
        /// A note, UTF-8 text; taken in once the vault has notes.
        case note = 2
    }

    /// §10.4: the envelope that starts a drop's plaintext, before the content.
    static func envelope(kind: Kind, name: String) -> [UInt8] {
        var nameBytes = Array(name.utf8)
        // Cut at a character boundary within the limit.
        if nameBytes.count > maximumNameBytes {
            var cut = String(name)
            while cut.utf8.count > maximumNameBytes { cut.removeLast() }
            nameBytes = Array(cut.utf8)
        }
        var out: [UInt8] = [envelopeVersion, kind.rawValue]
        out.appendBigEndian(UInt16(nameBytes.count))
        return out + nameBytes
    }

    /// §10.4: the plaintext size of a drop of `contentSize` bytes named `name`.
    static func plaintextSize(name: String, contentSize: UInt64) -> UInt64 {
        UInt64(envelope(kind: .file, name: name).count) + contentSize
    }
}
