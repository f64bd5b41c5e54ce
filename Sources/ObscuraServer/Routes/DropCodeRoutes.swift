import Hummingbird
import ObscuraKit

/// `GET /api/drops/code` (docs/API.md, "Drop code"): the unlocked vault's drop code
/// (docs/FORMAT.md §10.1) and the drop page's link for it, for the settings dialog.
///
/// The code is public-key material, not a secret, but it ties whoever holds it to this
/// vault, so only an unlocked session is shown it, like everything else of the vault.
struct DropCodeRoutes {
    /// The answer: the code, and the drop page's path with the code in its fragment (the
    /// page adds its own origin; a fragment never reaches the server).
    struct Code: Encodable {
        var code: String
        var link: String
    }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/drops/code") { _, context -> Response in
            let vault = try context.vault()
            // A vault made before drops gets its key pair now, a catalog write: off the
            // event loop, as every vault call that may write.
            let code = try await Blocking.run { try vault.dropCode().text }
            return try JSON.response(Code(code: code, link: "/drop#" + code))
        }
    }
}
