import Hummingbird

/// Finds the session the cookie names and enforces CSRF (docs/API.md): a request that
/// changes state must carry the session's token in `X-CSRF-Token`. The export form
/// carries it as a form field, which its route checks.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = GalleryContext
    /// The session cookie's name.
    static let cookieName = "obscura_session"
    /// Paths whose handler checks the CSRF token itself (form posts).
    static let formPaths: Set<String> = ["/api/export"]

    let store: SessionStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.store = store
        context.session = store.session(request.cookies[Self.cookieName]?.value)
        if request.method != .get && request.method != .head && !Self.formPaths.contains(request.uri.path) {
            guard let session = context.session, session.checkCSRF(request.headers[.xCSRFToken]) else {
                throw APIError.csrf
            }
        }
        return try await next(request, context)
    }

    /// The `Set-Cookie` value for `session`.
    static func cookie(for session: Session, secure: Bool) -> String {
        "\(cookieName)=\(session.id); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }
}
