import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// docs/API.md, "Access token": only the link printed at launch makes a session, the
/// session id changes at unlock and lock, and the cookie is named per launch.
@Suite struct AccessTokenTests {
    @Test func withoutTheTokenTheAPIAnswers401AndCreatesNothing() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            // No cookie at all: every API route, reading or changing, is refused.
            for (method, uri) in [(HTTPRequest.Method.get, "/api/session"), (.get, "/api/items"), (.post, "/api/vaults"),
                                  (.post, "/api/unlock"), (.post, "/api/lock")] {
                let response = try await browser.send(method, uri, json: ["password": "taken"])
                #expect(response.status == .unauthorized, "\(method) \(uri)")
                #expect(response.headers[.setCookie] == nil)
            }
            // A wrong token makes no session either.
            let wrong = try await browser.send(.post, "/api/session", json: ["token": String(browser.token.reversed())])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            #expect(try await browser.send(.post, "/api/session", json: [:]).status == .unauthorized)
            // A cookie of the right name with a made-up value is no session.
            let forged = try await browser.send(
                .post, "/api/vaults", json: ["password": "taken", "allowWeak": "true"],
                headers: [.cookie: "\(harness.server.access.cookieName)=\(Session.token(SystemRandom()))"])
            #expect(forged.status == .unauthorized)
            // The static page still loads: it is what asks for the token.
            #expect(try await browser.send(.get, "/").status == .ok)
        }
        // No decoy became a vault.
        #expect(throws: (any Error).self) { try harness.directory.unlock(password: SecureBytes(copying: Array("taken".utf8))) }
        // With the token, the same request works.
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "taken", "allowWeak": "true"]).status == .created)
        }
    }

    @Test func theSessionIdChangesAtUnlockAndAtLock() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            let fresh = try #require(browser.cookie)
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "pw", "allowWeak": "true"]).status == .created)
            let unlocked = try #require(browser.cookie)
            #expect(unlocked != fresh)
            // The id from before the unlock no longer names the session.
            let stale = try await browser.client.execute(
                uri: "/api/items", method: .get, headers: [.hostHeader: testHost, .cookie: fresh])
            #expect(stale.status == .unauthorized)
            #expect(try await browser.send(.get, "/api/items").status == .ok)
            #expect(try await browser.send(.post, "/api/lock").status == .noContent)
            let locked = try #require(browser.cookie)
            #expect(locked != unlocked)
            let old = try await browser.client.execute(
                uri: "/api/session", method: .get, headers: [.hostHeader: testHost, .cookie: unlocked])
            #expect(old.status == .unauthorized)
            #expect(try await browser.send(.post, "/api/unlock", json: ["password": "pw"]).status == .ok)
            #expect(browser.cookie != locked)
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == true)
        }
    }

    @Test func eachLaunchNamesItsCookieAndTLSUsesTheHostPrefix() throws {
        let first = LaunchAccess(secure: false)
        let second = LaunchAccess(secure: false)
        #expect(first.cookieName != second.cookieName)
        #expect(!first.check(second.token))
        #expect(first.check(first.token.copy()))
        let session = Session()
        let plain = first.cookie(for: session).description
        #expect(plain.hasPrefix(first.cookieName + "=" + session.id))
        #expect(!plain.contains("Secure"))
        let tls = LaunchAccess(secure: true)
        let secure = tls.cookie(for: session).description
        #expect(secure.hasPrefix("__Host-obscura_"))
        #expect(secure.contains("Secure") && secure.contains("HttpOnly") && secure.contains("SameSite=Strict"))
        #expect(secure.contains("Path=/") && !secure.contains("Domain"))
        // The printed link carries the token in the fragment, never in the query.
        let link = first.link("http://127.0.0.1:8750/").withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let token = first.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(link == "http://127.0.0.1:8750/#token=" + token)
        #expect(token.count == 64 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }
}
