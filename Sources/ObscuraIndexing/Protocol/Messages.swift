import ObscuraCrypto

/// `hello` (§S3.4.3): the first frame, from the worker.
public struct Hello: Sendable, Equatable {
    /// The worker's protocol version.
    public var version: UInt16
    /// The worker's release string.
    public var release: String

    /// Makes a hello.
    public init(version: UInt16, release: String) { (self.version, self.release) = (version, release) }

    /// This build's own.
    public static let current = Hello(version: IndexerProtocol.version, release: IndexerProtocol.release)

    /// The payload.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(version)
        bytes += Array(release.utf8)
        return bytes
    }

    /// Reads a payload; throws ``IndexerError/violation(_:)`` when it is short or not UTF-8.
    public static func decode(_ payload: [UInt8]) throws -> Hello {
        var cursor = ByteCursor(payload)
        let version = try cursor.integer(UInt16.self)
        guard let release = String(validating: cursor.rest(), as: UTF8.self) else {
            throw IndexerError.violation("a hello whose release is not UTF-8")
        }
        return Hello(version: version, release: release)
    }
}

/// What `loaded` reports.
public enum LoadStatus: UInt8, Sendable {
    /// Every engine asked for is ready.
    case ready = 0
    /// The OCR languages (or the orientation model) are not installed.
    case unavailable = 1
    /// An engine failed to load.
    case failed = 2
}

/// `load` (§S3.4.3): what the worker loads. Model fields come with step 5.
public struct LoadRequest: Sendable, Equatable {
    /// Tesseract's languages, "eng" or "eng+deu".
    public var languages: String
    /// Words under this Tesseract confidence are dropped (§S2.3; the product's is
    /// `OCREngine.minimumWordConfidence`, other values serve the measurement of junk words).
    public var minimumWordConfidence: UInt8

    /// Makes a request.
    public init(languages: String, minimumWordConfidence: UInt8 = 50) {
        (self.languages, self.minimumWordConfidence) = (languages, minimumWordConfidence)
    }

    /// The payload.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [minimumWordConfidence]
        let languages = Array(self.languages.utf8.prefix(255))
        bytes.append(UInt8(languages.count))
        bytes += languages
        return bytes
    }

    /// Reads a payload.
    public static func decode(_ payload: [UInt8]) throws -> LoadRequest {
        var cursor = ByteCursor(payload)
        let confidence = try cursor.integer(UInt8.self)
        let count = Int(try cursor.integer(UInt8.self))
        let bytes = try cursor.take(count)
        try cursor.end()
        guard confidence <= 100 else { throw IndexerError.violation("a load with confidence \(confidence)") }
        // Tesseract's language names: letters, digits, underscores, joined by "+".
        guard let languages = String(validating: bytes, as: UTF8.self), !languages.isEmpty,
              languages.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0)
                  || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2B })
        else { throw IndexerError.violation("a load naming odd languages") }
        return LoadRequest(languages: languages, minimumWordConfidence: confidence)
    }
}

/// `loaded` (§S3.4.3).
public struct Loaded: Sendable, Equatable {
    /// The raw ``LoadStatus``.
    public var status: UInt8
    /// The engines' versions ("tesseract 5.3.0").
    public var versions: String

    /// Makes a reply.
    public init(status: UInt8, versions: String) { (self.status, self.versions) = (status, versions) }

    /// The payload.
    public func encoded() -> [UInt8] { [status] + Array(versions.utf8.prefix(200)) }

    /// Reads a payload.
    public static func decode(_ payload: [UInt8]) throws -> Loaded {
        var cursor = ByteCursor(payload)
        let status = try cursor.integer(UInt8.self)
        guard let versions = String(validating: cursor.rest(), as: UTF8.self) else {
            throw IndexerError.violation("a loaded whose versions are not UTF-8")
        }
        return Loaded(status: status, versions: versions)
    }
}

/// What an `item` asks the worker to compute.
public struct Wanted: OptionSet, Sendable {
    /// The bits as they travel in `item`.
    public let rawValue: UInt8
    /// The set of `rawValue`'s bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The text in the picture.
    public static let text = Wanted(rawValue: 1)
    /// The image encoder's vector (step 5).
    public static let vector = Wanted(rawValue: 2)
}

/// `item`'s fields before the original's bytes (§S3.4.3).
public struct ItemHeader: Sendable, Equatable {
    /// The request's id; the result must name it.
    public var id: UInt32
    /// Raw ``Wanted``.
    public var wanted: UInt8
    /// The media type of the bytes ("image/jpeg").
    public var mime: String

    /// Makes a header.
    public init(id: UInt32, wanted: Wanted, mime: String) {
        (self.id, self.wanted, self.mime) = (id, wanted.rawValue, mime)
    }

    /// The payload's fields before the bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(id)
        bytes.append(wanted)
        let mime = Array(self.mime.utf8.prefix(200))
        bytes.append(UInt8(mime.count))
        bytes += mime
        return bytes
    }

    /// Reads a payload: the header and the bytes after it.
    public static func decode(_ payload: [UInt8]) throws -> (ItemHeader, ArraySlice<UInt8>) {
        var cursor = ByteCursor(payload)
        let id = try cursor.integer(UInt32.self)
        let wanted = try cursor.integer(UInt8.self)
        let count = Int(try cursor.integer(UInt8.self))
        guard let mime = String(validating: try cursor.take(count), as: UTF8.self) else {
            throw IndexerError.violation("an item whose type is not UTF-8")
        }
        return (ItemHeader(id: id, wanted: Wanted(rawValue: wanted), mime: mime), cursor.rest())
    }
}

/// An item's outcome (§S3.4.3): a fixed set, no free text.
public enum ItemStatus: UInt8, Sendable {
    /// Read.
    case done = 0
    /// Not a picture the worker can read (format, size).
    case notIndexable = 1
    /// The read failed.
    case failed = 2
}

/// `result` as it travels, before the parent's checks (``CheckedResult``).
public struct ItemResult: Sendable, Equatable {
    /// The request's id.
    public var id: UInt32
    /// Raw ``ItemStatus``.
    public var status: UInt8
    /// Mean confidence, 0 … 100.
    public var confidence: Float
    /// The text's bytes, as sent.
    public var text: [UInt8]
    /// The vector, when one was sent.
    public var vector: [Float]?

    /// Makes a result.
    public init(id: UInt32, status: UInt8, confidence: Float, text: [UInt8], vector: [Float]? = nil) {
        (self.id, self.status, self.confidence, self.text, self.vector) = (id, status, confidence, text, vector)
    }

    /// The payload. The text's length travels as UInt16; a caller keeps it under
    /// ``IndexerProtocol/textCap`` (the parent refuses more).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(id)
        bytes.append(status)
        bytes.appendBigEndian(confidence.bitPattern)
        let text = self.text.prefix(Int(UInt16.max))
        bytes.appendBigEndian(UInt16(text.count))
        bytes += text
        if let vector {
            bytes.append(1)
            for value in vector { bytes.appendBigEndian(value.bitPattern) }
        } else {
            bytes.append(0)
        }
        return bytes
    }

    /// Reads a payload; the fields must account for every byte, and a vector must hold
    /// exactly ``IndexerProtocol/vectorLength`` floats.
    public static func decode(_ payload: [UInt8]) throws -> ItemResult {
        var cursor = ByteCursor(payload)
        let id = try cursor.integer(UInt32.self)
        let status = try cursor.integer(UInt8.self)
        let confidence = try cursor.float()
        let count = Int(try cursor.integer(UInt16.self))
        let text = Array(try cursor.take(count))
        let flag = try cursor.integer(UInt8.self)
        var vector: [Float]?
        switch flag {
        case 0: break
        case 1: vector = try (0..<IndexerProtocol.vectorLength).map { _ in try cursor.float() }
        default: throw IndexerError.violation("a result with vector flag \(flag)")
        }
        try cursor.end()
        return ItemResult(id: id, status: status, confidence: confidence, text: text, vector: vector)
    }
}

/// `probe` (debug builds): the probe's number (``CObscuraSandbox``'s list, or
/// ``hang``) and the path it uses.
public struct ProbeRequest: Sendable, Equatable {
    /// A probe that never answers: the deadline test.
    public static let hang: UInt8 = 100
    /// The probe.
    public var probe: UInt8
    /// The file it opens, unlinks or reads.
    public var path: String

    /// Makes a request.
    public init(probe: UInt8, path: String) { (self.probe, self.path) = (probe, path) }

    /// The payload.
    public func encoded() -> [UInt8] { [probe] + Array(path.utf8.prefix(4000)) }

    /// Reads a payload.
    public static func decode(_ payload: [UInt8]) throws -> ProbeRequest {
        var cursor = ByteCursor(payload)
        let probe = try cursor.integer(UInt8.self)
        guard let path = String(validating: cursor.rest(), as: UTF8.self) else { throw IndexerError.violation("a probe path") }
        return ProbeRequest(probe: probe, path: path)
    }
}

/// `probed` (debug builds): the errno the probe's call failed with, 0 when it succeeded.
public struct ProbeReply: Sendable, Equatable {
    /// The errno, or 0.
    public var code: Int32

    /// Makes a reply.
    public init(code: Int32) { self.code = code }

    /// The payload.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt32(bitPattern: code))
        return bytes
    }

    /// Reads a payload of exactly four bytes.
    public static func decode(_ payload: [UInt8]) throws -> ProbeReply {
        var cursor = ByteCursor(payload)
        let code = Int32(bitPattern: try cursor.integer(UInt32.self))
        try cursor.end()
        return ProbeReply(code: code)
    }
}
