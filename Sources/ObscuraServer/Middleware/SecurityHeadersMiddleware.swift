import HTTPTypes
import Hummingbird

/// Puts the gallery's security headers on every response, error responses included
/// (docs/API.md): nothing is cached, nothing is sniffed, framed or referred, and the
/// page may run only its own scripts.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The Content-Security-Policy: no inline script or style, no framing, nothing from
    /// another origin.
    static var contentSecurityPolicy: String {
        [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
            "media-src 'self' blob:", "connect-src 'self'", "font-src 'self'", "manifest-src 'self'",
            // The drop page's service worker (docs/PHONE.md §W4.3): named, since Safari
            // before 15.5 skipped script-src on the way to default-src 'none'.
            "worker-src 'self'",
            "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// `Strict-Transport-Security` is sent only under TLS.
    let tls: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError where !(error is APIError) {
            response = try error.response(from: request, context: context)
        } catch {
            // Engine errors become JSON with a status; their messages carry no secret.
            response = try APIError(error).response(from: request, context: context)
        }
        // Every response may carry vault data or lead to it: none is stored anywhere.
        response.headers[.cacheControl] = "no-store"
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.crossOriginOpenerPolicy] = "same-origin"
        response.headers[.crossOriginResourcePolicy] = "same-origin"
        response.headers[.permissionsPolicy] = "camera=(), microphone=(), geolocation=(), interest-cohort=()"
        if tls { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
    static let crossOriginResourcePolicy = Self("Cross-Origin-Resource-Policy")!
    static let permissionsPolicy = Self("Permissions-Policy")!
    static let strictTransportSecurity = Self("Strict-Transport-Security")!
    static let xCSRFToken = Self("X-CSRF-Token")!
    /// `Host` as a plain header: HTTP/1 servers move it into the request's authority, but
    /// in-process tests and some clients leave it among the headers.
    static let hostHeader = Self("Host")!
}
