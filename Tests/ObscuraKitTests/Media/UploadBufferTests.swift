import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// Uploads are held in secret memory where the kernel offers it (docs/SECURITY.md,
/// "Memory"), moved to shared memory for videos and past the limit, and imported alike.
@Suite struct UploadBufferTests {
    private func filled(_ bytes: [UInt8], secretLimit: Int = UploadBuffer.secretMemoryLimit, piece: Int = 100_000) throws -> UploadBuffer {
        let buffer = try UploadBuffer(secretLimit: secretLimit)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            try bytes[offset..<end].withUnsafeBytes { try buffer.append($0) }
            offset = end
        }
        return buffer
    }

    #if os(Linux)
    @Test func secretMemoryIsPreferredAndNoOtherProcessCanOpenIt() throws {
        try #require(UploadBuffer.secretMemoryAvailable, "this kernel offers no memfd_secret")
        let bytes = SystemRandom().bytes(3 << 20)
        let buffer = try filled(bytes)
        #expect(buffer.backing == .secretMemory)
        // Grown past its first region, the bytes are all there, in order.
        #expect(buffer.withContents { Array($0) == bytes } == true)
        // No path leads to it: /proc cannot reopen a secret memory file.
        #expect(throws: (any Error).self) { try buffer.sharedDescriptor() }
    }

    @Test func pastTheLimitTheUploadMovesToSharedMemoryWhole() throws {
        let bytes = SystemRandom().bytes(3 << 20)
        let buffer = try filled(bytes, secretLimit: 1 << 20)
        #expect(buffer.backing == .sharedMemory)
        #expect(buffer.withContents { _ in true } == nil)
        let fd = try buffer.sharedDescriptor()
        let moved = try FileIO.read("/proc/self/fd/\(fd)") == bytes
        #expect(moved, "the moved bytes differ")
    }

    @Test func photosImportFromSecretMemoryAndVideosFromSharedMemory() throws {
        try #require(UploadBuffer.secretMemoryAvailable, "this kernel offers no memfd_secret")
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        defer { vault.lock() }
        let jpeg = try TestImages.image("jpg", width: 800, height: 600)
        let photoBuffer = try filled(jpeg)
        #expect(photoBuffer.backing == .secretMemory)
        guard case let .imported(photo) = try vault.importUpload(photoBuffer, name: "a.jpg") else {
            Issue.record("the photo was not imported")
            return
        }
        #expect(photoBuffer.backing == .secretMemory)
        #expect(photo.kind == .photo && photo.width == 800 && photo.height == 600)
        #expect(try vault.thumbnail(photo) != nil)
        let photoBack = try vault.read(photo, range: 0..<UInt64(jpeg.count)) == jpeg
        #expect(photoBack, "the photo read back differs")

        let clip = try FileIO.read(try TestImages.video(in: root.path))
        let videoBuffer = try filled(clip)
        guard case let .imported(video) = try vault.importUpload(videoBuffer, name: "clip.mp4") else {
            Issue.record("the video was not imported")
            return
        }
        // ffprobe and the poster tool ran in other processes, on the shared copy.
        #expect(videoBuffer.backing == .sharedMemory)
        #expect(video.kind == .video && video.duration != nil && video.thumbId != nil)
        let videoBack = try vault.read(video, range: 0..<UInt64(clip.count)) == clip
        #expect(videoBack, "the video read back differs")
    }
    #endif
}
