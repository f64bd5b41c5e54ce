import Foundation
import Hummingbird
import ObscuraKit

/// The request context of the gallery: the session the cookie names, once
/// ``SessionMiddleware`` has looked it up.
public struct GalleryContext: RequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The session, nil when the request carries no (known) session cookie.
    var session: Session?
    /// The session store, set by ``SessionMiddleware``.
    var store: SessionStore?
    /// This request's hold on its vault's idle time, set by ``SessionMiddleware`` when
    /// the request has a session.
    var activity: RequestActivity?

    /// Makes an empty context for a request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Bodies decoded by Hummingbird itself (none are: the API reads its own).
    public var maxUploadSize: Int { JSON.maximumBodySize }

    /// The session, or 401 locked when there is none.
    func requireSession() throws -> Session {
        guard let session else { throw APIError.locked }
        return session
    }

    /// The rendition worker of this request's session's vault, or 401 locked. Asking
    /// does not count as activity (the viewer polls it while a video is converted, and
    /// must not keep the vault from locking itself).
    func renditions() throws -> RenditionWorker {
        _ = try vaultWithoutActivity()
        guard let binding = session?.binding else { throw APIError.locked }
        return binding.renditions
    }

    /// The unlocked vault of this request's session without counting as activity, or 401.
    func vaultWithoutActivity() throws -> Vault {
        guard let session, let store, let vault = store.unlockedVault(of: session) else { throw APIError.locked }
        return vault
    }

    /// The server's time (the session store's clock).
    var now: Date { store?.time ?? Date() }

    /// The unlocked vault of this request's session, or 401 locked.
    func vault() throws -> Vault {
        guard let session, let store, let vault = store.vault(for: session, during: activity) else { throw APIError.locked }
        return vault
    }
}
