import ObscuraCrypto

/// The indexer's protocol (docs/SEARCH.md §S3.4.3): frames of `UInt32BE length ‖ UInt8
/// type ‖ payload` over the socket pair, length counting the type and the payload, every
/// integer big-endian. Both executables come from one build, so the protocol is not a
/// stored format; its version and the release string still guard against an indexer
/// left behind by another build.
public enum IndexerProtocol {
    /// The protocol version each side names in `hello`.
    public static let version: UInt16 = 1
    /// The release both executables were built as. The project has no numbered releases
    /// yet; this string changes with every change of the protocol's meaning.
    public static let release = "obscura 2026.11 indexer protocol 1"
    /// Bytes of a frame's header: the length and the type.
    public static let headerSize = 5
    /// C_TEXT (docs/SEARCH.md §S2.3, §S4.1): the most UTF-8 bytes of text per item.
    public static let textCap = 3840
    /// Floats in a vector (§S3.4.3).
    public static let vectorLength = 512
    /// Token ids in a `tokens` request (§S3.6).
    public static let tokenCount = 77
    /// The most bytes of an original sent in one `item` (§S2.5: larger originals are not
    /// indexable).
    public static let itemBytesLimit = 256 << 20
}

/// A frame's type and the most its length may be (§S3.4.3's table). The reader checks the
/// length against this before it allocates anything.
public enum FrameType: UInt8, Sendable, CaseIterable {
    /// worker → parent: protocol version, release.
    case hello = 1
    /// parent → worker: an empty request; worker → parent: its hardening state as lines.
    case diag = 2
    /// parent → worker: role, languages, tessdata folder.
    case load = 3
    /// worker → parent: status, engine versions.
    case loaded = 4
    /// parent → worker: one item's bytes and what to compute.
    case item = 5
    /// worker → parent: one item's outcome, text and vector.
    case result = 6
    /// parent → worker: a query's token ids (step 5).
    case tokens = 7
    /// worker → parent: a query's vector (step 5).
    case vector = 8
    /// parent → worker, debug builds only: make one governed call (§S3.4.2's tests).
    case probe = 0x7E
    /// worker → parent, debug builds only: the probe's errno.
    case probed = 0x7F

    /// Which way a frame of this type travels.
    public enum Direction: Sendable { case toWorker, toParent, both }

    /// The direction of this type.
    public var direction: Direction {
        switch self {
        case .hello, .loaded, .result, .vector, .probed: .toParent
        case .load, .item, .tokens, .probe: .toWorker
        case .diag: .both
        }
    }

    /// The most a frame of this type may count (type byte and payload), in the direction
    /// `toParent` (a `diag` request is empty; its reply is text).
    public func maximumLength(toParent: Bool) -> Int {
        switch self {
        case .hello: 256
        case .diag: toParent ? 4096 : 1
        case .load: 4096
        case .loaded: 256
        case .item: IndexerProtocol.itemBytesLimit + 256
        case .result: 8192
        case .tokens: 1 + 4 + 4 * IndexerProtocol.tokenCount
        case .vector: 1 + 4 + 4 * IndexerProtocol.vectorLength
        case .probe: 4096
        case .probed: 5
        }
    }

    /// The type of `byte` when a frame of it may travel towards the parent (`toParent`) or
    /// the worker; nil for an unknown type or one going the wrong way.
    public static func incoming(_ byte: UInt8, toParent: Bool) -> FrameType? {
        guard let type = FrameType(rawValue: byte) else { return nil }
        switch type.direction {
        case .both: return type
        case .toParent: return toParent ? type : nil
        case .toWorker: return toParent ? nil : type
        }
    }
}

/// A frame's header as read: the type, and the payload's length (the frame's less one).
public struct FrameHeader: Sendable, Equatable {
    /// The frame's type.
    public let type: FrameType
    /// Bytes of payload that follow.
    public let payloadLength: Int

    /// Reads five header bytes arriving at the parent (`toParent`) or the worker.
    ///
    /// - Throws: ``IndexerError/violation(_:)`` for an unknown type, one going the wrong way,
    ///   a zero length, or a length over the type's maximum; nothing is allocated first.
    public static func parse(_ bytes: some Collection<UInt8>, toParent: Bool) throws -> FrameHeader {
        guard bytes.count == IndexerProtocol.headerSize else { throw IndexerError.violation("a short frame header") }
        let array = Array(bytes)
        let length = Int(array.readBigEndian(UInt32.self, at: 0))
        guard let type = FrameType.incoming(array[4], toParent: toParent) else {
            throw IndexerError.violation("a frame of unknown type \(array[4])")
        }
        guard length >= 1, length <= type.maximumLength(toParent: toParent) else {
            throw IndexerError.violation("a \(type) frame of \(length) bytes")
        }
        return FrameHeader(type: type, payloadLength: length - 1)
    }

    /// The header of a frame of `type` with `payloadLength` bytes of payload.
    public static func encode(_ type: FrameType, payloadLength: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt32(payloadLength + 1))
        bytes.append(type.rawValue)
        return bytes
    }
}
