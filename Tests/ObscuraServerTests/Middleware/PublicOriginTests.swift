import Foundation
import HTTPTypes
import Testing
@testable import ObscuraServer

/// `serve --origin https://NAME` (docs/PHONE.md §W5.2): a reverse proxy on this machine
/// serves the gallery at an HTTPS origin. Only that Host is answered, its origin is the
/// only one accepted, cookies and headers are an HTTPS server's, passkeys take its name,
/// and no request is taken as this machine's user's.
@Suite struct PublicOriginTests {
    @Test func anOriginIsHTTPSANameAndAPortOnly() {
        #expect(PublicOrigin("https://Photos.Home.Arpa")?.hostValue == "photos.home.arpa")
        #expect(PublicOrigin("https://photos.home.arpa:443/")?.hostValue == "photos.home.arpa")
        #expect(PublicOrigin("https://photos.home.arpa:8443")?.text == "https://photos.home.arpa:8443")
        for refused in ["http://photos.home.arpa", "https://", "https://photos.home.arpa/gallery", "https://a@photos.home.arpa",
                        "https://photos.home.arpa/?x=1", "photos.home.arpa", "https://photos.home.arpa:0"] {
            #expect(PublicOrigin(refused) == nil, "\(refused)")
        }
    }

    @Test func behindAProxyOnlyTheOriginIsAnsweredAndNothingIsLocal() async throws {
        let harness = try ServerHarness(origin: try #require(PublicOrigin("https://photos.home.arpa")))
        let token = harness.token
        try await harness.test { given in
            let browser = Browser(client: given.client, token: token, host: "photos.home.arpa", scheme: "https")
            try await browser.createVault()
            // The cookie of an HTTPS server.
            #expect(browser.cookie?.hasPrefix("__Host-obscura_") == true)
            let session = try await browser.send(.get, "/api/session")
            #expect(session.status == .ok && session.headers[HTTPField.Name("Strict-Transport-Security")!] == "max-age=31536000")
            // The loopback names are not answered: a proxy that rewrote Host fails at once.
            for host in ["127.0.0.1:8750", "localhost:8750", "photos.home.arpa:8750"] {
                let direct = Browser(client: given.client, token: token, host: host)
                #expect(try await direct.send(.get, "/api/session").status == .misdirectedRequest, "\(host)")
            }
            // Only the HTTPS origin may post.
            let plain = try await browser.send(.post, "/api/lock", headers: [.origin: "http://photos.home.arpa"])
            #expect(plain.status == .forbidden)
            // Passkeys take the origin's name.
            let begin = try await browser.send(.post, "/api/passkey/begin", json: ["kind": "create"])
            #expect(try begin.json()["rpId"] as? String == "photos.home.arpa")
            // Nothing here is this machine's user's: the outer key is not shown.
            #expect(try await browser.send(.get, "/api/keys/outer").json()["shown"] as? Bool != true)
            // The drop page's QR code is made for the origin a phone can reach.
            #expect(try await browser.send(.get, "/api/drops/code").json()["origins"] as? [String] == ["https://photos.home.arpa"])
        }
    }

    /// The origins a phone can use (docs/PHONE.md §W5.4): the proxy's, else a TLS bind's
    /// certificate names beyond loopback; never loopback or plain HTTP.
    @Test func phoneOriginsAreHTTPSAndNeverLoopback() {
        var configuration = GalleryServer.Configuration()
        #expect(DropCodeRoutes.phoneOrigins(configuration, port: 8750, certificate: []).isEmpty)
        configuration.tlsCertificate = "cert.pem"
        #expect(DropCodeRoutes.phoneOrigins(configuration, port: 8750, certificate: ["photos.home.arpa"]).isEmpty,
                "a loopback TLS bind is not reachable from a phone")
        configuration.host = "0.0.0.0"
        #expect(DropCodeRoutes.phoneOrigins(configuration, port: 8750, certificate: ["photos.home.arpa", "10.0.0.5"])
                == ["https://photos.home.arpa:8750", "https://10.0.0.5:8750"])
        #expect(DropCodeRoutes.phoneOrigins(configuration, port: 443, certificate: ["photos.home.arpa"]) == ["https://photos.home.arpa"])
        configuration.tlsCertificate = nil
        #expect(DropCodeRoutes.phoneOrigins(configuration, port: 8750, certificate: []).isEmpty, "plain HTTP cannot seal")
    }
}
