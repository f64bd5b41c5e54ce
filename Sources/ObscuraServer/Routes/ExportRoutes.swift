import Foundation
import Hummingbird
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// `/api/export/password` and `/api/export` (docs/API.md): the vault as an `.obscura`
/// file, sealed while it streams to the browser. Nothing is decrypted and no copy is
/// written on the server.
struct ExportRoutes {
    func register(on router: Router<GalleryContext>) {
        router.post("/api/export/password") { _, context -> Response in
            _ = try context.vault()
            let password = ExportFormat.generatePassword()
            defer { password.zeroize() }
            // Written into the body byte by byte, never through a String.
            var body = ByteBuffer(string: "{\"password\":\"")
            password.withUnsafeBytes { _ = body.writeBytes($0) }
            body.writeString("\"}")
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: body))
        }
        router.post("/api/export") { request, context -> Response in
            let fields = try await SecretFields.form(from: request)
            // A form post: the CSRF token is a field, not a header.
            guard let session = context.session, session.checkCSRF(fields.text("csrf")) else { throw APIError.csrf }
            let vault = try context.vault()
            let password = try fields.require("password")
            do {
                // The page sends a generated password; a typed one is judged like any other,
                // in the form the key is derived from (a generated-looking one is canonicalised).
                let canonical = ExportFormat.canonicalPassword(password)
                // The typed password itself when it is used as typed: not to be wiped here.
                defer { if canonical !== password { canonical.zeroize() } }
                try await PasswordStrengthRoutes.requireAcceptable(canonical, cost: PasswordKDFCost(vault.exportKDF), fields: fields)
            } catch {
                password.zeroize()
                throw error
            }
            let export = try await Blocking.run { () -> PreparedExport in
                defer { password.zeroize() }
                return try vault.prepareExport(password: password, kdf: vault.exportKDF)
            }
            let day = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate])
            let headers: HTTPFields = [
                .contentType: "application/octet-stream",
                .contentDisposition: "attachment; filename=\"obscura-\(day).obscura\"",
            ]
            let pipe = ExportPipe(export)
            let body = ResponseBody(contentLength: Int(export.fileSize)) { writer in
                do {
                    while let piece = try await pipe.next() {
                        try await writer.write(piece)
                    }
                } catch {
                    pipe.cancel()
                    throw error
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: headers, body: body)
        }
    }
}

/// Runs an export's sealing loop on its own thread and hands the sealed pieces to the
/// response writer, at most ``depth`` pieces ahead: memory stays bounded however slow
/// the client reads, and a client that goes away stops the export.
final class ExportPipe: Sendable {
    static let depth = 4

    private let handoff = BoundedHandoff<ByteBuffer>(capacity: depth)

    init(_ export: PreparedExport) {
        let handoff = self.handoff
        WorkerThread().start(name: "obscura.export") {
            do {
                try export.write(emit: { sealed in
                    try handoff.put(sealed.withUnsafeBytes { ByteBuffer(bytes: $0) })
                })
                handoff.finish()
            } catch {
                handoff.finish(throwing: error)
            }
        }
    }

    /// The next sealed piece; nil at the end.
    func next() async throws -> ByteBuffer? {
        let handoff = self.handoff
        return try await Blocking.run { try handoff.take() }
    }

    /// Stops the export (the client went away).
    func cancel() { handoff.cancel() }

    // A response dropped before its body ran must not leave the thread waiting for room.
    deinit { handoff.cancel() }
}
