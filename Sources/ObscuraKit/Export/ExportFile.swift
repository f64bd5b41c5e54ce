import Foundation
import ObscuraCrypto
import ObscuraStore

/// An `.obscura` export being read (docs/FORMAT.md §7). ``open(password:)`` checks the
/// password against the header's verification tag before a single payload byte is read.
package final class ExportFile {
    /// The export's path.
    package let path: String
    let header: [UInt8]
    /// The export KEK's KDF and cost, from header bytes [6, 12) (§7.1).
    let kdf: KDFParameters
    let salt: [UInt8]
    /// Bytes read from the file so far (tests check a wrong password reads only the header).
    package var bytesRead: Int { header.count + (payload?.bytesRead ?? 0) }
    private(set) var payload: ChunkedFileReader?

    /// Reads and checks the 64-byte header.
    package init(path: String) throws {
        self.path = path
        header = try FileIO.read(path, limit: ExportFormat.headerSize)
        guard header.count == ExportFormat.headerSize else { throw ExportError.notAnExport("shorter than its header") }
        guard Array(header[0..<4]) == ExportFormat.magic else { throw ExportError.notAnExport("unknown magic") }
        guard header.readBigEndian(UInt16.self, at: 4) == ExportFormat.version
        else { throw ExportError.notAnExport("unsupported version") }
        let field = header.readBigEndian(UInt16.self, at: 6)
        guard field == ExportFormat.pbkdf2Field || field == KDFParameters.argon2idSuite else {
            throw ExportError.notAnExport("unsupported key derivation")
        }
        // §2: a damaged cost must neither stall the import nor exhaust memory.
        guard let kdf = ExportFormat.kdf(field: field, word: header.readBigEndian(UInt32.self, at: 8)) else {
            throw ExportError.notAnExport("key derivation cost out of range")
        }
        self.kdf = kdf
        // §7.1: an all-zero prefix would make payload chunk 0's nonce the verification
        // seal's all-zero nonce under the same KEK; no writer makes one, so it is refused
        // from the header alone, before anything is derived.
        guard header[ExportFormat.prefixOffset..<ExportFormat.headerSize].contains(where: { $0 != 0 }) else {
            throw ExportError.notAnExport("zero nonce prefix")
        }
        salt = Array(header[12..<ExportFormat.tagOffset])
    }

    /// Derives the export KEK from `password` and compares the verification tag in
    /// constant time; only then opens the payload. Throws ``ExportError/wrongPassword``.
    @discardableResult
    package func open(password: SecureBytes) throws -> PayloadReader {
        let kek = try kdf.deriveKey(password: ExportFormat.canonicalPassword(password), salt: salt)
        let prefix = Array(header[0..<ExportFormat.tagOffset])
        let expected = try ExportFormat.verificationTag(kek: kek, headerPrefix: prefix)
        guard ConstantTime.equals(expected, header[ExportFormat.tagOffset..<ExportFormat.prefixOffset]) else {
            throw ExportError.wrongPassword
        }
        let noncePrefix = Array(header[ExportFormat.prefixOffset..<ExportFormat.headerSize])
        let context = header
        do {
            let reader = try ChunkedFileReader(path: path, offset: UInt64(ExportFormat.headerSize)) { chunked in
                // §7.3: the payload header's version, prefix, flags and chunk size are all
                // fixed by the export format; a reader checks every one.
                guard chunked.version == ChunkedFormat.version, chunked.noncePrefix == noncePrefix, chunked.flags == 0,
                      chunked.chunkSize == ExportFormat.chunkSize else {
                    throw ExportError.damaged("payload header does not match the export header")
                }
                return try ChunkCipher(header: chunked, key: kek, folderKey: nil, context: context)
            }
            payload = reader
            return PayloadReader(reader)
        } catch let error as ExportError {
            throw error
        } catch {
            throw ExportError.damaged("\(error)")
        }
    }
}
