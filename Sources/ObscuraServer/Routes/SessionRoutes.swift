import Hummingbird
import ObscuraKit

/// `/api/session`, `/api/unlock`, `/api/vaults`, `/api/lock`, `/api/visibility`
/// (docs/API.md, "Session, unlock, lock").
struct SessionRoutes {
    let store: SessionStore
    let secureCookies: Bool

    struct SessionState: Encodable {
        var unlocked: Bool
        var csrf: String
        var autoLockMinutes: Int?

        // `autoLockMinutes` is null, not absent, while locked (docs/API.md).
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(unlocked, forKey: .unlocked)
            try c.encode(csrf, forKey: .csrf)
            try c.encode(autoLockMinutes, forKey: .autoLockMinutes)
        }
        private enum CodingKeys: String, CodingKey { case unlocked, csrf, autoLockMinutes }
    }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/session") { request, context -> Response in
            let existing = context.session
            let session = existing ?? store.newSession()
            let vault = store.unlockedVault(of: session)
            var response = try JSON.response(SessionState(
                unlocked: vault != nil, csrf: session.csrf, autoLockMinutes: try vault.map { try $0.autoLockMinutes() }))
            if existing == nil {
                response.headers[.setCookie] = SessionMiddleware.cookie(for: session, secure: secureCookies)
            }
            return response
        }
        router.post("/api/unlock") { request, context -> Response in
            let session = try context.requireSession()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            try await Blocking.run { try store.unlock(session, password: password) }
            password.zeroize()
            return try JSON.response(["unlocked": true])
        }
        router.post("/api/vaults") { request, context -> Response in
            let session = try context.requireSession()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            try await Blocking.run { try store.create(session, password: password) }
            password.zeroize()
            return try JSON.response(["unlocked": true], status: .created)
        }
        router.post("/api/lock") { _, context -> Response in
            store.lockVault(of: try context.requireSession())
            return JSON.noContent()
        }
        router.post("/api/visibility") { request, context -> Response in
            struct Body: Decodable { var hidden: Bool }
            let body = try await JSON.decode(Body.self, from: request)
            store.visibility(of: try context.requireSession(), hidden: body.hidden)
            return JSON.noContent()
        }
    }
}
