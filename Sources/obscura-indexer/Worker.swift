import CObscuraSandbox
import ObscuraImaging
import ObscuraIndexing
import ObscuraOCR
#if canImport(Glibc)
import Glibc
#endif

/// The worker's request loop (docs/SEARCH.md §S3.4.3). The parent is trusted, yet what it
/// sends is checked as strictly as the other way round: a mismatch is a bug, and the
/// worker exits.
struct Worker {
    let landlockABI: Int32
    let channel = FrameChannel(descriptor: 3, isParent: false)

    func run() -> Never {
        Imaging.allowPictureLoadersOnly()
        var engine: OCREngine?
        var minimumWordConfidence = OCREngine.minimumWordConfidence
        do {
            try channel.send(.hello, Hello.current.encoded())
            while true {
                let (type, payload) = try channel.receive()
                switch type {
                case .diag:
                    guard payload.isEmpty else { _exit(1) }
                    try channel.send(.diag, diagnostics())
                case .load:
                    let request = try LoadRequest.decode(payload)
                    let loaded: Loaded
                    do {
                        engine = try OCREngine(languages: request.languages)
                        minimumWordConfidence = Int(request.minimumWordConfidence)
                        loaded = Loaded(status: LoadStatus.ready.rawValue, versions: "tesseract \(OCREngine.version)")
                    } catch OCRError.unavailable {
                        loaded = Loaded(status: LoadStatus.unavailable.rawValue, versions: "")
                    }
                    try channel.send(.loaded, loaded.encoded())
                case .item:
                    let (header, bytes) = try ItemHeader.decode(payload)
                    guard let engine else { _exit(1) }
                    try channel.send(.result, Self.read(bytes, header: header, engine: engine, minimumWordConfidence: minimumWordConfidence).encoded())
                case .probe:
                    try channel.send(.probed, probe(try ProbeRequest.decode(payload)))
                default:
                    _exit(1)
                }
            }
        } catch {
            // The parent closed its end (lock, or it ended) or sent what it must not.
            _exit(0)
        }
    }

    /// §S2.5: the picture decoded upright at the preview size in grey, then §S2.3's chain.
    static func read(_ bytes: ArraySlice<UInt8>, header: ItemHeader, engine: OCREngine, minimumWordConfidence: Int) -> ItemResult {
        do {
            let grey = try bytes.withUnsafeBytes { try Imaging.grey($0) }
            let read = try grey.pixels.withUnsafeBytes { 
                try engine.read(grey: $0, width: grey.width, height: grey.height, minimumWordConfidence: minimumWordConfidence)
            }
            return ItemResult(id: header.id, status: ItemStatus.done.rawValue, confidence: Float(max(0, read.confidence)),
                              text: Array(read.text.utf8))
        } catch ImagingError.unsupported, ImagingError.tooLarge {
            return ItemResult(id: header.id, status: ItemStatus.notIndexable.rawValue, confidence: 0, text: [])
        } catch {
            return ItemResult(id: header.id, status: ItemStatus.failed.rawValue, confidence: 0, text: [])
        }
    }

    func diagnostics() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 4000)
        let length = obscura_sandbox_diag(landlockABI, &buffer, buffer.count)
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }

    /// Debug builds make the governed call; a release build has no probes and treats the
    /// request as the parent's bug.
    func probe(_ request: ProbeRequest) -> [UInt8] {
        #if DEBUG
        if request.probe == ProbeRequest.hang {
            while true { sleep(1000) }
        }
        return ProbeReply(code: obscura_sandbox_probe(Int32(request.probe), request.path)).encoded()
        #else
        _exit(1)
        #endif
    }
}

extension Array where Element == String {
    /// The strings as C strings for the call in `body` (nil-terminated array).
    func withCStringArray<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
