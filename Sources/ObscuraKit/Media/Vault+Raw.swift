import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraImaging
import ObscuraStore

/// Camera RAW files (``RawImage``): what the importer learns of one, and the pictures the
/// viewer shows of one stored, both made from the JPEG preview the camera embedded.
extension Vault {
    /// Reads a RAW being imported: exiftool gets the file as its standard input (bytes in
    /// memory through a socket), never a copy on disk. nil when exiftool is not installed:
    /// then nothing tells a picture from sensor data, and the file is stored as a file.
    ///
    /// - Throws: ``ImagingError/corrupt(_:)`` for a file exiftool cannot read or whose
    ///   preview is cut short: a damaged RAW is refused, not stored blind.
    static func inspectRaw(_ input: ImportInput, pixelLimit: Int) throws -> RawImage.Info? {
        do {
            switch input {
            case let .file(fd, path):
                guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io(path, errno) }
                return try RawImage.inspect(.descriptor(fd), pixelLimit: pixelLimit)
            case let .memory(bytes):
                return try RawImage.inspect(.stream { write in try write(bytes) }, pixelLimit: pixelLimit)
            }
        } catch ImagingError.toolMissing {
            return nil
        }
    }

    /// Runs `body` over the whole file `input`, read into memory from a descriptor (and
    /// zeroed after).
    static func withWholeFile<R>(_ input: ImportInput, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        switch input {
        case let .memory(bytes):
            return try body(bytes)
        case let .file(fd, path):
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError.io(path, errno) }
            var bytes = try FileIO.read(fd: fd, limit: Int.max, path: path)
            defer { bytes.withUnsafeMutableBytes { raw in if let base = raw.baseAddress { secureZero(base, raw.count) } } }
            return try bytes.withUnsafeBytes(body)
        }
    }

    /// A picture of a stored RAW from its embedded preview, upright, longest side at most
    /// `maxSide` (nil: the preview's own size); nil when it has no preview, or exiftool is
    /// missing. The original reaches exiftool decrypted chunk by chunk through a socket, as
    /// ``export(_:to:)`` streams it: never whole in this process's memory.
    func rawPicture(_ item: ItemRecord, maxSide: Int?) throws -> [UInt8]? {
        let reader = try originalReader(item)
        do {
            let info = try RawImage.inspect(.stream { write in
                try reader.forEachChunk { chunk in try chunk.withUnsafeBytes(write) }
            })
            return try RawImage.picture(info, maxSide: maxSide)
        } catch ImagingError.toolMissing {
            return nil
        }
    }
}
