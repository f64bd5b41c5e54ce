import Hummingbird
import ObscuraKit
import ObscuraKeys

/// `/api/session`, `/api/unlock`, `/api/vaults`, `/api/lock`, `/api/visibility`
/// (docs/API.md, "Access token" and "Session, unlock, lock").
struct SessionRoutes {
    let store: SessionStore
    let access: LaunchAccess

    struct SessionState: Encodable {
        var unlocked: Bool
        var csrf: String
        var autoLockMinutes: Int?
        /// Whether the unlock page leads with creating a vault (a directory this server
        /// has just made, with no vault created through it yet).
        var suggestCreate: Bool
        /// What drop intakes made while the vault was open did, not yet told to this
        /// session; absent when none.
        var drops: String?
        /// How many of those drops were refused; absent when none.
        var dropsRefused: Int?

        // `autoLockMinutes` is null, not absent, while locked (docs/API.md).
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(unlocked, forKey: .unlocked)
            try c.encode(csrf, forKey: .csrf)
            try c.encode(autoLockMinutes, forKey: .autoLockMinutes)
            try c.encode(suggestCreate, forKey: .suggestCreate)
            try c.encodeIfPresent(drops, forKey: .drops)
            try c.encodeIfPresent(dropsRefused, forKey: .dropsRefused)
        }
        private enum CodingKeys: String, CodingKey { case unlocked, csrf, autoLockMinutes, suggestCreate, drops, dropsRefused }
    }

    func register(on router: Router<GalleryContext>) {
        router.post("/api/session") { request, context -> Response in
            // A fresh session whatever the request carried: nobody can plant an id.
            let token = try await SecretFields.json(from: request)["token"]
            defer { token?.zeroize() }
            guard access.check(token) else { throw APIError(.unauthorized, "wrong access token") }
            return try state(of: store.newSession(), status: .created, cookie: true)
        }
        router.get("/api/session") { _, context -> Response in
            try state(of: try context.requireSession(), cookie: false)
        }
        router.post("/api/unlock") { request, context -> Response in
            let session = try context.requireSession()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            defer { password.zeroize() }
            let drops = try await Blocking.run { try store.unlock(session, password: password) }
            // What the unlock's intake took in or refused, for the gallery to say once.
            struct Unlocked: Encodable { var unlocked = true; var drops: String?; var dropsRefused: Int? }
            let answer = Unlocked(drops: drops.summary, dropsRefused: drops.failed.count + drops.keptAsFiles.count == 0 ? nil : drops.failed.count + drops.keptAsFiles.count)
            return try withCookie(JSON.response(answer), session)
        }
        router.post("/api/vaults") { request, context -> Response in
            let session = try context.requireSession()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            defer { password.zeroize() }
            let cost = PasswordKDFCost(PasswordStrengthRoutes.newVaultKDF(store.directory))
            try await PasswordStrengthRoutes.requireAcceptable(password, cost: cost, fields: fields)
            try await Blocking.run { try store.create(session, password: password) }
            return try withCookie(JSON.response(["unlocked": true], status: .created), session)
        }
        router.post("/api/lock") { _, context -> Response in
            let session = try context.requireSession()
            store.lockVault(of: session)
            return withCookie(JSON.noContent(), session)
        }
        router.post("/api/visibility") { request, context -> Response in
            struct Body: Decodable { var hidden: Bool }
            let body = try await JSON.decode(Body.self, from: request)
            store.visibility(of: try context.requireSession(), hidden: body.hidden)
            return JSON.noContent()
        }
    }

    private func state(of session: Session, status: HTTPResponse.Status = .ok, cookie: Bool) throws -> Response {
        let vault = store.unlockedVault(of: session)
        let news = vault == nil ? nil : store.dropNews(for: session)
        let response = try JSON.response(SessionState(
            unlocked: vault != nil, csrf: session.csrf, autoLockMinutes: try vault.map { try $0.autoLockMinutes() },
            suggestCreate: store.suggestsCreating, drops: news?.text, dropsRefused: news.flatMap { $0.refused > 0 ? $0.refused : nil }),
            status: status)
        return cookie ? withCookie(response, session) : response
    }

    /// `response` with the session's (new) cookie.
    private func withCookie(_ response: Response, _ session: Session) -> Response {
        var response = response
        response.setCookie(access.cookie(for: session))
        return response
    }
}
