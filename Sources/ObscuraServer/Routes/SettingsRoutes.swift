import Hummingbird
import ObscuraKit
import ObscuraKeys

/// `/api/settings` and `/api/password` (docs/API.md, "Settings, password, export").
struct SettingsRoutes {
    let store: SessionStore

    struct Settings: Codable { var autoLockMinutes: Int }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/settings") { _, context -> Response in
            let vault = try context.vault()
            return try JSON.response(Settings(autoLockMinutes: try vault.autoLockMinutes()))
        }
        router.post("/api/settings") { request, context -> Response in
            let vault = try context.vault()
            let body = try await JSON.decode(Settings.self, from: request)
            try await Blocking.run { try vault.setAutoLockMinutes(body.autoLockMinutes) }
            store.autoLockChanged(for: try context.requireSession(), minutes: body.autoLockMinutes)
            return try JSON.response(Settings(autoLockMinutes: body.autoLockMinutes))
        }
        router.post("/api/password") { request, context -> Response in
            let vault = try context.vault()
            let fields = try await SecretFields.json(from: request)
            let current = try fields.require("current")
            let new = try fields.require("new")
            do {
                try await PasswordStrengthRoutes.requireAcceptable(new, cost: PasswordKDFCost(vault.kdf), fields: fields)
            } catch {
                current.zeroize()
                new.zeroize()
                throw error
            }
            try await Blocking.run {
                defer {
                    current.zeroize()
                    new.zeroize()
                }
                try store.changePassword(of: vault, current: current, new: new, removingPasskeys: fields.text("removePasskeys") == "true")
            }
            // The change stands; the old key block may outlive it in the free space (PR6).
            guard !vault.credentialCoverOwed else { return try JSON.response(["coverOwed": true]) }
            return JSON.noContent()
        }
    }
}
