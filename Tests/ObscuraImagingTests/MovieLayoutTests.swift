import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraImaging

@Suite struct MovieLayoutTests {
    let dir: String

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-movie-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The file as `pieces` lay it out.
    func laidOut(_ file: [UInt8], _ pieces: [MovieLayout.Piece]) -> [UInt8] {
        pieces.flatMap { piece -> [UInt8] in
            switch piece {
            case let .bytes(b): return b
            case let .range(r): return Array(file[Int(r.lowerBound)..<Int(r.upperBound)])
            }
        }
    }

    func order(_ file: [UInt8]) throws -> [MovieLayout.Piece]? {
        try MovieLayout.streamingOrder(size: UInt64(file.count)) { r in
            Array(file[Int(r.lowerBound)..<min(Int(r.upperBound), file.count)])
        }
    }

    /// The types of every top-level box, in order (MovieLayout itself stops at `moov`).
    func boxTypes(_ file: [UInt8]) -> [String] {
        var types = [String]()
        var at = 0
        while at < file.count, let box = MovieLayout.parse(file[at...], at: UInt64(at), limit: UInt64(file.count)) {
            types.append(box.type)
            at = Int(box.range.upperBound)
        }
        return types
    }

    /// ffmpeg decodes every frame of a stream it cannot seek in, and counts them.
    func framesDecoded(from stream: [UInt8]) throws -> Int {
        let out = try ExternalTool.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                   "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", "pipe:0"],
                                       feeding: { write in try stream.withUnsafeBytes(write) })
        return Int(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func anIndexKeptLastIsMovedFirstAndEveryFrameStillDecodesFromAPipe() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try bytes(try TestImages.hevcVideo(in: dir))
        // As cameras and ffmpeg write it, a pipe cannot read it: the index comes too late.
        #expect((try? framesDecoded(from: file)) != 60)
        let pieces = try #require(try order(file))
        let moved = laidOut(file, pieces)
        #expect(moved.count == file.count)
        #expect(Array(moved[4..<8]) == Array("ftyp".utf8))
        let types = boxTypes(moved)
        #expect(types.firstIndex(of: "moov") ?? .max < types.firstIndex(of: "mdat") ?? -1, "\(types)")
        #expect(try framesDecoded(from: moved) == 60)
        // Already in streaming order: nothing to do.
        #expect(try order(moved) == nil)
        let info = try Video.probe(feeding: { write in try moved.withUnsafeBytes(write) })
        #expect(info.videoCodec == "hevc" && info.audioCodec == "aac" && info.width == 640)
        #expect(Rendition.isNeeded(info))
    }

    @Test func junkAfterTheIndexIsFedAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try bytes(try TestImages.hevcVideo(in: dir)) + Array("JUNK".utf8)
        let moved = laidOut(file, try #require(try order(file)))
        #expect(try framesDecoded(from: moved) == 60)
    }

    @Test func millionsOfBoxesOrADeepIndexAreRefusedNotWalked() throws {
        // 20,000 empty `free` boxes, then an mdat and a moov: refused after 10,000 reads.
        var file = [UInt8]()
        for _ in 0..<20_000 { file += [0, 0, 0, 8] + Array("free".utf8) }
        file += [0, 0, 0, 8] + Array("mdat".utf8) + [0, 0, 0, 8] + Array("moov".utf8)
        #expect(throws: ImagingError.corruptMovie("more than 10000 boxes")) { try order(file) }
        // A moov of traks within traks, 40 deep, after its mdat.
        var inner = [UInt8]()
        for _ in 0..<40 {
            let size = UInt32(inner.count + 8)
            inner = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("trak".utf8) + inner
        }
        let moovSize = UInt32(inner.count + 8)
        let deep = [0, 0, 0, 16] + Array("mdat".utf8) + [UInt8](repeating: 0, count: 8)
            + [UInt8(moovSize >> 24), UInt8(moovSize >> 16 & 0xFF), UInt8(moovSize >> 8 & 0xFF), UInt8(moovSize & 0xFF)] + Array("moov".utf8) + inner
        #expect(throws: ImagingError.corruptMovie("the movie's index is nested too deeply")) { try order(deep) }
    }

    @Test func bytesThatAreNotBoxesAreLeftToFfmpeg() throws {
        #expect(try order(Array("not a movie at all, just text".utf8)) == nil)
        #expect(try order([]) == nil)
        // A box claiming more than the file holds.
        #expect(try order([0, 0, 0x10, 0, 0x66, 0x74, 0x79, 0x70, 1, 2, 3, 4]) == nil)
    }

    @Test func aDamagedIndexIsAnErrorNotAWrongFile() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var file = try bytes(try TestImages.hevcVideo(in: dir))
        let boxes = try #require(try MovieLayout.topLevelBoxes(size: UInt64(file.count)) { Array(file[Int($0.lowerBound)..<min(Int($0.upperBound), file.count)]) })
        let moov = try #require(boxes.first { $0.type == "moov" })
        // Its first child's size made larger than moov itself.
        let child = Int(moov.contentStart)
        file[child] = 0x7F
        #expect(throws: ImagingError.self) { try order(file) }
    }

    @Test func aRenditionOfHEVCIsH264AndAACInAFragmentedMP4() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try bytes(try TestImages.hevcVideo(in: dir, seconds: 3, width: 2560, height: 1440))
        let moved = laidOut(file, try #require(try order(file)))
        let progress = Counter()
        var mp4 = [UInt8]()
        try Rendition.make(feeding: { write in try moved.withUnsafeBytes(write) }, duration: 3,
                           progress: { _ in progress.add() }) { mp4 += $0 }
        #expect(progress.value > 0)
        let info = try Video.probe(feeding: { write in try mp4.withUnsafeBytes(write) })
        #expect(info.videoCodec == "h264" && info.audioCodec == "aac")
        // 1440p comes down to 1080p, in its own proportions.
        #expect(info.width == 1920 && info.height == 1080)
        #expect(!Rendition.isNeeded(info))
        // Every frame of the three seconds, from a stream read once from its start.
        #expect(try framesDecoded(from: mp4) == 90)
        let types = boxTypes(mp4)
        #expect(Array(types.prefix(2)) == ["ftyp", "moov"])
        #expect(types.contains("moof") && types.last == "mfra")
    }

    @Test func aFeedThatFailsStopsFfmpegAndIsTheError() throws {
        struct Cut: Error {}
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try bytes(try TestImages.hevcVideo(in: dir))
        let moved = laidOut(file, try #require(try order(file)))
        var out = 0
        #expect(throws: Cut.self) {
            try Rendition.make(feeding: { write in
                try moved.prefix(moved.count / 2).withUnsafeBytes(write)
                throw Cut()
            }, duration: 2, progress: { _ in }) { out += $0.count }
        }
    }
}
