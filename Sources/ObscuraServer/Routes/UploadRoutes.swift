import Foundation
import Hummingbird
import ObscuraKit

/// `POST /api/upload`: one file per request, its raw bytes as the body (docs/API.md).
/// The body goes into an ``UploadBuffer`` in memory (secret memory where the kernel
/// offers it), never to disk in the clear; the importer then treats it as any file:
/// content sniffing, thumbnail, sealing.
struct UploadRoutes {
    /// The largest upload accepted.
    let limit: Int64

    func register(on router: Router<GalleryContext>) {
        router.post("/api/upload") { request, context -> Response in
            let vault = try context.vault()
            let query = FormQuery(request.uri.query)
            let name = query["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "upload"
            let folderId = query["folder"]
            let length = request.headers[.contentLength].flatMap { Int64($0) }
            if let length, length > limit {
                throw APIError(.contentTooLarge, "file too large (limit \(limit) bytes)")
            }
            let buffer = try UploadBuffer(expectedSize: length)
            for try await piece in request.body {
                guard buffer.size + Int64(piece.readableBytes) <= limit else {
                    throw APIError(.contentTooLarge, "file too large (limit \(limit) bytes)")
                }
                try piece.withUnsafeReadableBytes { try buffer.append($0) }
            }
            guard buffer.size > 0 else { throw APIError(.unprocessableContent, "The file is empty.") }
            let outcome = try await Blocking.run { () -> Vault.UploadOutcome in
                let folder = try folderId.flatMap { $0.isEmpty ? nil : try ItemRoutes.folder($0, in: vault) }
                return try vault.importUpload(buffer, name: name, into: folder)
            }
            switch outcome {
            case let .imported(item), let .joined(item):
                // A file that joined a still already shown answers with the still.
                if item.renditionState == .pending { try context.renditions().start() }
                return try JSON.response(["item": ItemJSON(item)], status: .created)
            case .duplicate:
                return try JSON.response(["duplicate": true])
            case let .failed(failure):
                // The page gets the plain sentence; the tools' words go to the log only.
                context.logger.info("upload not imported", metadata: ["detail": "\(failure.detail)"])
                throw APIError(.unprocessableContent, failure.message)
            }
        }
    }
}
