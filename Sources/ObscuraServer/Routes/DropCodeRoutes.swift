import Foundation
import Hummingbird
import NIOConcurrencyHelpers
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
        /// The origins a phone can open the drop page at (docs/PHONE.md §W5.4): the
        /// `--origin`, else under a TLS bind beyond loopback the certificate's names at the
        /// server's port. Never loopback, never plain HTTP (no secure context: the page
        /// could not seal). The page's QR code uses the first when it is on loopback.
        var origins: [String]
        /// What the settings' "Watch a folder" section fills in its texts (docs/PHONE.md
        /// §W2.11): the command, the code file line, the systemd unit, the launchd agent.
        var watch: WatchFacts
    }

    /// Facts of this machine for `obscura watch`'s texts: all of them the owner's own,
    /// shown only to an unlocked session.
    struct WatchFacts: Encodable {
        /// The vault directory, absolute.
        var vaultPath: String
        /// "linux" or "macos": which service text comes first.
        var platform: String
        /// The running `obscura`, resolved.
        var binary: String
        /// The home directory of the user the server runs as.
        var home: String
    }

    /// The phone-usable origins, known once the server listens (its port).
    let origins: NIOLockedValueBox<[String]>
    /// The facts for the watch texts.
    let watch: WatchFacts

    func register(on router: Router<GalleryContext>) {
        router.get("/api/drops/code") { _, context -> Response in
            let vault = try context.vault()
            // A vault made before drops gets its key pair now, a catalog write: off the
            // event loop, as every vault call that may write.
            let code = try await Blocking.run { try vault.dropCode().text }
            return try JSON.response(Code(code: code, link: "/drop#" + code, origins: origins.withLockedValue { $0 }, watch: watch))
        }
    }

    /// The facts of this machine for a server over the vault directory at `vaultPath`.
    static func watchFacts(vaultPath: String) -> WatchFacts {
        #if os(macOS)
        let platform = "macos"
        let binary = Bundle.main.executablePath ?? CommandLine.arguments[0]
        #else
        let platform = "linux"
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        #endif
        let absolute = URL(fileURLWithPath: vaultPath).standardizedFileURL.path
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return WatchFacts(vaultPath: absolute, platform: platform, binary: binary, home: home)
    }

    /// The phone-usable origins of a server of `configuration` listening on `port`, whose
    /// certificate names `certificate` (``CertificateNames``).
    static func phoneOrigins(_ configuration: GalleryServer.Configuration, port: Int, certificate: [String]) -> [String] {
        if let origin = configuration.origin { return [origin.text] }
        guard configuration.usesTLS, !configuration.isLoopback else { return [] }
        return certificate.map { "https://" + $0 + (port == 443 ? "" : ":\(port)") }
    }
}
