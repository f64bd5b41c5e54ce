import Hummingbird

/// Finds the session the cookie names, refuses API requests that have none, and
/// enforces CSRF (docs/API.md): a request that changes state must carry the session's
/// token in `X-CSRF-Token`. The export and ZIP download forms carry it as a form field,
/// which their routes check; the access-token exchange comes before any session exists,
/// and a drop (DropRoutes) needs none.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = GalleryContext
    /// Paths whose handler checks the CSRF token itself (form posts).
    static let formPaths: Set<String> = ["/api/export", "/api/items/zip"]
    /// Where the page trades the launch's access token for a session.
    static let claimPath = "/api/session"

    let store: SessionStore
    let access: LaunchAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.store = store
        context.session = store.session(request.cookies[access.cookieName]?.value)
        let path = request.uri.path
        let isClaim = request.method == .post && path == Self.claimPath
        // A drop comes while the vault is locked, from a page with no session: its route
        // holds it to this origin by its own header instead (DropRoutes).
        let isDrop = request.method == .post && (path == DropRoutes.path || path == StaticRoutes.sharePath)
        if path.hasPrefix("/api/") && !isClaim && !isDrop && context.session == nil {
            throw APIError.noSession
        }
        if request.method != .get && request.method != .head && !isClaim && !isDrop && !Self.formPaths.contains(path) {
            guard let session = context.session, session.checkCSRF(request.headers[.xCSRFToken]) else {
                throw APIError.csrf
            }
        }
        guard context.session != nil else { return try await next(request, context) }
        let activity = RequestActivity(store: store)
        context.activity = activity
        var response = try await next(request, context)
        // A streamed answer (a ZIP, an export, a video) is written after this returns:
        // its body keeps the hold until it is written or dropped (RequestActivity).
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            withExtendedLifetime(activity) {}
        }
        return response
    }
}
