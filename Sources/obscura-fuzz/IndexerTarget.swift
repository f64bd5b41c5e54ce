// The parent's side of the indexer's protocol (docs/SEARCH.md §S3.4.3): frames from a
// worker that decodes hostile pictures, and so may be anyone's. Whatever the bytes, the
// parent must refuse or accept within its bounds, allocate no more than a type's maximum
// and never trap.
import Foundation
import ObscuraIndexing

let indexerFramesTarget = FuzzTarget("indexer-frames", seeds: {
    func frame(_ type: FrameType, _ payload: [UInt8]) -> [UInt8] {
        FrameHeader.encode(type, payloadLength: payload.count) + payload
    }
    let result = ItemResult(id: 1, status: 0, confidence: 91, text: Array("Passport receipt".utf8),
                            vector: (0..<512).map { Float($0 % 5) - 2 })
    return [
        frame(.hello, Hello.current.encoded()) + frame(.loaded, Loaded(status: 0, versions: "tesseract 5.3.0").encoded())
            + frame(.result, result.encoded()),
        frame(.diag, Array("pid=1\nfds=0,1,2,3\nseccomp=2".utf8)) + frame(.probed, [0, 0, 0, 1]),
        frame(.result, ItemResult(id: 1, status: 1, confidence: 0, text: []).encoded()),
    ]
}) { bytes in
    // The frames in order, as the parent's reader takes them: a header checked before any
    // allocation, then a payload of at most the type's maximum, then its decoder and checks.
    var offset = 0
    while bytes.count - offset >= IndexerProtocol.headerSize {
        guard let header = try? FrameHeader.parse(bytes[offset..<offset + IndexerProtocol.headerSize], toParent: true) else {
            return
        }
        offset += IndexerProtocol.headerSize
        guard header.payloadLength <= bytes.count - offset else { return }
        let payload = Array(bytes[offset..<offset + header.payloadLength])
        offset += header.payloadLength
        switch header.type {
        case .hello: _ = try? Hello.decode(payload)
        case .loaded: _ = try? Loaded.decode(payload)
        case .result:
            if let result = try? ItemResult.decode(payload) {
                _ = try? CheckedResult.check(result, id: 1, wanted: [.text, .vector])
            }
        case .diag: _ = String(validating: payload, as: UTF8.self)
        default: break
        }
    }
    // And the same bytes through the parent's state machine (review I-R18): a worker that
    // said them and then closed its end. Every wait ends at the end of the stream.
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return }
    _ = bytes.withUnsafeBytes { write(pair[1], $0.baseAddress, $0.count) }
    close(pair[1])
    let parent = IndexerProcess(socket: pair[0], pid: nil)
    defer { parent.stop() }
    do {
        try parent.expectHello()
        _ = try? parent.load(languages: "eng")
        while true {
            let checked = try [UInt8](repeating: 0x41, count: 8).withUnsafeBytes {
                try parent.read($0, mime: "image/png", wanted: [.text, .vector], timeout: .seconds(1))
            }
            // What the parent keeps is within the cap, displayable, and a vector is unit length.
            precondition(checked.text.utf8.count <= IndexerProtocol.textCap)
            precondition(CheckedResult.displayable(checked.text) == checked.text)
            if let vector = checked.vector {
                precondition(abs(vector.reduce(0) { $0 + Double($1) * Double($1) } - 1) < 1e-3)
            }
        }
    } catch {}
}
