import Hummingbird
import ObscuraKit
import ObscuraKeys

/// `/api/folders...` (docs/API.md, "Folders").
struct FolderRoutes {
    let store: SessionStore

    struct Folders: Encodable { var folders: [FolderJSON] }
    struct Rename: Decodable { var name: String }
    struct Move: Decodable { var parent: String? }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/folders") { _, context -> Response in
            let vault = try context.vault()
            return try JSON.response(try await Blocking.run {
                Folders(folders: try vault.folders().map { try FolderJSON($0, in: vault) })
            })
        }
        router.post("/api/folders") { request, context -> Response in
            let vault = try context.vault()
            let fields = try await SecretFields.json(from: request)
            guard let path = fields.text("path"), !path.isEmpty else { throw APIError.badRequest("path is required") }
            let password = fields["password"].flatMap { $0.count > 0 ? $0 : nil }
            if let password {
                do {
                    try await PasswordStrengthRoutes.requireAcceptable(password, cost: PasswordKDFCost(vault.folderKDF), fields: fields)
                } catch {
                    password.zeroize()
                    throw error
                }
            }
            let folder = try await Blocking.run { () -> FolderJSON in
                defer { password?.zeroize() }
                return try FolderJSON(try vault.createFolder(path, password: password, kdf: vault.folderKDF), in: vault)
            }
            return try JSON.response(folder, status: .created)
        }
        router.post("/api/folders/:id/unlock") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let password = try await SecretFields.json(from: request).require("password")
            let opened = try await Blocking.run { () -> FolderJSON in
                defer { password.zeroize() }
                let folder = try ItemRoutes.folder(id, in: vault)
                try store.unlockFolder(folder, of: vault, password: password)
                return try FolderJSON(folder, in: vault)
            }
            // The folder's videos waiting for a rendition can be reached now.
            try context.renditions().start()
            return try JSON.response(opened)
        }
        router.post("/api/folders/:id/lock") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            try await Blocking.run { vault.lockFolder(try ItemRoutes.folder(id, in: vault)) }
            return JSON.noContent()
        }
        router.post("/api/folders/:id/rename") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let body = try await JSON.decode(Rename.self, from: request)
            return try JSON.response(try await Blocking.run {
                try FolderJSON(try vault.renameFolder(try ItemRoutes.folder(id, in: vault), to: body.name), in: vault)
            })
        }
        router.post("/api/folders/:id/move") { request, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            let body = try await JSON.decode(Move.self, from: request)
            return try JSON.response(try await Blocking.run {
                let parent = try body.parent.map { try ItemRoutes.folder($0, in: vault) }
                return try FolderJSON(try vault.moveFolder(try ItemRoutes.folder(id, in: vault), into: parent), in: vault)
            })
        }
        router.post("/api/folders/:id/delete") { _, context -> Response in
            let vault = try context.vault()
            let id = try context.parameters.require("id")
            try await Blocking.run { try vault.removeFolder(try vault.folderPath(try ItemRoutes.folder(id, in: vault))) }
            return JSON.noContent()
        }
    }
}
