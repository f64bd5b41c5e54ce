import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// docs/API.md, "Rules every response and request follows".
@Suite struct SecurityTests {
    /// Every route that changes state, with a body it would accept.
    static var stateChanging: [(String, [String: Any]?)] { [
        ("/api/unlock", ["password": "x"]), ("/api/vaults", ["password": "x"]), ("/api/password-strength", ["password": "x"]), ("/api/lock", nil),
        ("/api/visibility", ["hidden": true]), ("/api/upload?name=a.bin", nil), ("/api/items/delete", ["ids": []]),
        ("/api/items/move", ["ids": []]), ("/api/trash/restore", ["ids": []]), ("/api/trash/delete", ["ids": []]),
        ("/api/trash/empty", nil), ("/api/items/00000000-0000-0000-0000-000000000000/favorite", ["favorite": true]),
        ("/api/folders", ["path": "A"]), ("/api/folders/x/unlock", ["password": "x"]), ("/api/folders/x/lock", nil),
        ("/api/folders/x/delete", nil), ("/api/settings", ["autoLockMinutes": 1]),
        ("/api/password", ["current": "a", "new": "b"]), ("/api/export/password", nil), ("/api/export", nil),
        ("/api/backup", nil), ("/api/backup/settings", ["afterSeconds": 600]),
    ] }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            _ = try await browser.upload(Array(repeating: 7, count: 1000), name: "a.bin")
            let item = try await browser.send(.get, "/api/items").json()["items"] as? [[String: Any]]
            let id = try #require(item?.first?["id"] as? String)
            for uri in ["/", "/app/app.css", "/api/session", "/api/items", "/api/items/\(id)", "/api/items/\(id)/original",
                        "/api/folders", "/api/settings", "/nope", "/api/items/nope"] {
                let response = try await browser.send(.get, uri)
                #expect(response.headers[.cacheControl] == "no-store", "\(uri)")
                #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                #expect(response.headers[.referrerPolicy] == "no-referrer", "\(uri)")
                let csp = try #require(response.headers[.contentSecurityPolicy], "\(uri)")
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"))
            }
            // Error answers too: a refused state change.
            let refused = try await browser.send(.post, "/api/lock", csrf: false)
            #expect(refused.status == .forbidden)
            #expect(refused.headers[.cacheControl] == "no-store")
        }
    }

    @Test func theSessionCookieIsHttpOnlyAndStrict() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            let response = try await browser.send(.post, "/api/session", json: ["token": browser.token])
            let cookie = try #require(response.headers[.setCookie])
            let name = harness.server.access.cookieName
            #expect(name.hasPrefix("obscura_") && name.count == "obscura_".count + 12)
            #expect(cookie.hasPrefix(name + "="))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))
            // 256 bits, base64url without padding: 43 characters.
            let value = cookie.split(separator: ";")[0].dropFirst(name.count + 1)
            #expect(value.count == 43)
        }
    }

    @Test func noStateChangeWithoutTheCSRFToken() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            for (uri, body) in Self.stateChanging {
                let missing = try await browser.send(.post, uri, json: body, csrf: false)
                #expect(missing.status == .forbidden, "\(uri) without a token: \(missing.status)")
                let wrong = try await browser.send(.post, uri, json: body, headers: [.xCSRFToken: "A" + (browser.csrf ?? "")], csrf: false)
                #expect(wrong.status == .forbidden, "\(uri) with a wrong token: \(wrong.status)")
            }
            // Still unlocked: none of the refused requests locked or changed anything.
            let items = try await browser.send(.get, "/api/items")
            #expect(items.status == .ok)
            #expect(try items.json()["total"] as? Int == 0)
            #expect(try await browser.send(.get, "/api/folders").json()["folders"] as? [Any] != nil)
        }
    }

    @Test func aForeignHostOrOriginIsRefused() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            for host in ["evil.example:8750", "127.0.0.1:8751", "attacker.com", "127.0.0.1.nip.io:8750"] {
                let response = try await browser.client.execute(uri: "/api/session", method: .get, headers: [.hostHeader: host])
                #expect(response.status == .misdirectedRequest, "\(host)")
            }
            for origin in ["http://evil.example", "http://127.0.0.1:8751", "null", "https://127.0.0.1:8750"] {
                let response = try await browser.send(.post, "/api/lock", headers: [.origin: origin])
                #expect(response.status == .forbidden, "\(origin)")
            }
            for host in ["localhost:8750", "[::1]:8750", "127.0.0.1:8750"] {
                let response = try await browser.client.execute(
                    uri: "/api/session", method: .get, headers: [.hostHeader: host, .cookie: browser.cookie ?? ""])
                #expect(response.status == .ok, "\(host)")
            }
        }
    }

    /// Issue 40 point 6: `serve --host 0.0.0.0` allowed only `Host: 0.0.0.0:PORT`, so every
    /// real client was refused. A wildcard bind answers to the machine's own addresses and
    /// names and the loopback names; other names are still refused.
    @Test func aWildcardBindAnswersToTheMachinesOwnNamesOnly() {
        let machine: Set<String> = ["192.168.1.20", "[fe80::1]", "nas", "nas.local"]
        for bind in ["0.0.0.0", "::"] {
            let hosts = OriginMiddleware<GalleryContext>.hosts(bound: bind, port: 8750, machine: machine)
            for host in ["192.168.1.20:8750", "[fe80::1]:8750", "nas:8750", "nas.local:8750", "127.0.0.1:8750", "localhost:8750"] {
                #expect(hosts.contains(host), "\(bind) refuses \(host)")
            }
            for host in ["evil.example:8750", "192.168.1.21:8750", "192.168.1.20:8751", "nas.example:8750"] {
                #expect(!hosts.contains(host), "\(bind) answers to \(host)")
            }
        }
        // The real machine's: its loopback interface, at least.
        #expect(MachineNames.current().contains("127.0.0.1"))
        // A named bind stays as it was: that name alone.
        #expect(OriginMiddleware<GalleryContext>.hosts(bound: "192.168.1.20", port: 8750, machine: machine) == ["192.168.1.20:8750"])
    }

    @Test func aLockedSessionReachesNoVaultData() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            _ = try await browser.upload(Array(repeating: 7, count: 1000), name: "a.bin")
            let id = try #require((try await browser.send(.get, "/api/items").json()["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await browser.send(.post, "/api/lock").status == .noContent)
            for uri in ["/api/items", "/api/items/\(id)", "/api/items/\(id)/thumbnail", "/api/items/\(id)/preview",
                        "/api/items/\(id)/full", "/api/items/\(id)/original", "/api/folders", "/api/settings"] {
                let response = try await browser.send(.get, uri)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(try response.json()["error"] as? String == "locked")
            }
            #expect(try await browser.send(.post, "/api/export/password").status == .unauthorized)
            // A session that never unlocked is no better off.
            let stranger = browser.another()
            try await stranger.start()
            #expect(try await stranger.send(.get, "/api/items").status == .unauthorized)
            #expect(try await stranger.send(.get, "/api/items/\(id)/original").status == .unauthorized)
        }
    }

    @Test func lockingEndsEverySessionOnTheVaultForGood() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault("pw one")
            let second = browser.another()
            try await second.start()
            #expect(try await second.send(.post, "/api/unlock", json: ["password": "pw one"]).status == .ok)
            #expect(try await second.send(.get, "/api/items").status == .ok)
            #expect(try await browser.send(.post, "/api/lock").status == .noContent)
            #expect(try await second.send(.get, "/api/items").status == .unauthorized)
            // Unlocking again in one session does not revive the other's.
            #expect(try await browser.send(.post, "/api/unlock", json: ["password": "pw one"]).status == .ok)
            #expect(try await browser.send(.get, "/api/items").status == .ok)
            #expect(try await second.send(.get, "/api/items").status == .unauthorized)
        }
    }

    @Test func failedUnlocksMeetAProgressiveDelay() async throws {
        let harness = try ServerHarness(clock: ManualClock())
        // Made outside the server: a create through the page would count as a guess.
        try harness.directory.createVault(password: SecureBytes(copying: Array("right".utf8)), iterations: testIterations).lock()
        try await harness.test { browser in
            try await browser.start()
            for _ in 0..<UnlockThrottle.freeFailures + 1 {
                let response = try await browser.send(.post, "/api/unlock", json: ["password": "wrong"])
                #expect(response.status == .unauthorized)
                #expect(try response.json()["error"] as? String == "wrong password")
            }
            // Even the right password waits now, and so does a new session.
            let delayed = try await browser.send(.post, "/api/unlock", json: ["password": "right"])
            #expect(delayed.status == .tooManyRequests)
            #expect(Int(delayed.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try delayed.json()["retryAfter"] as? Int ?? 0 >= 1)
            let other = browser.another()
            try await other.start()
            #expect(try await other.send(.post, "/api/unlock", json: ["password": "right"]).status == .tooManyRequests)
        }
        #expect(UnlockThrottle.delay(afterFailures: 3) == 0)
        #expect(UnlockThrottle.delay(afterFailures: 4) == 2)
        #expect(UnlockThrottle.delay(afterFailures: 6) == 8)
        #expect(UnlockThrottle.delay(afterFailures: 100) == UnlockThrottle.maximumDelay)
    }

    @Test func autoLockLocksAnIdleVault() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(minuteSeconds: 3, clock: clock)
        try await harness.test { browser in
            try await browser.createVault()
            #expect(try await browser.send(.post, "/api/settings", json: ["autoLockMinutes": 1]).status == .ok)
            #expect(try await browser.send(.get, "/api/items").status == .ok)
            // Asking whether the vault is unlocked (the page polls it) is not activity.
            clock.advance(1)
            harness.server.store.sweep()
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == true)
            // Nor is the rendition status, which the viewer polls while a video is converted.
            #expect(try await browser.send(.get, "/api/renditions").status == .ok)
            // Nor the backup state, which an open gallery polls every 30 s, hidden or not,
            // with no backup set up too: counted, it kept an unattended tab's vault open
            // for good (issue 40, point 11).
            clock.advance(1.5)
            #expect(try await browser.send(.get, "/api/backup").status == .ok)
            // The sweep runs in the application's service group, absent in router tests:
            // drive it as the service would.
            clock.advance(1)
            harness.server.store.sweep()
            #expect(try await browser.send(.get, "/api/items").status == .unauthorized)
        }
    }

    /// An upload slower than the auto-lock delay is activity from its start to its
    /// answer: the vault stays open until it lands (a browser test's upload under load
    /// found its vault locked), and the delay counts again from its end.
    @Test func anUploadSlowerThanTheDelayLandsAndTheDelayCountsFromItsEnd() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(minuteSeconds: 3, clock: clock)
        try await harness.testLive { browser, port in
            try await browser.createVault()
            #expect(try await browser.send(.post, "/api/settings", json: ["autoLockMinutes": 1]).status == .ok)
            let store = harness.server.store
            let bytes = Array("a note that took its time over a slow link\n".utf8)
            let post = try HandPost(port: port, length: bytes.count, path: "/api/upload?name=slow.txt",
                                    headers: ["Cookie: \(browser.cookie ?? "")", "X-CSRF-Token: \(browser.csrf ?? "")"])
            post.send(Array(bytes.prefix(8)))
            for _ in 0..<400 where store.requestsInFlight == 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(store.requestsInFlight == 1)
            clock.advance(10)
            store.sweep()
            post.send(Array(bytes.dropFirst(8)))
            #expect(await post.status(within: 30) == 201)
            for _ in 0..<400 where store.requestsInFlight > 0 { try await Task.sleep(for: .milliseconds(50)) }
            clock.advance(2)
            store.sweep()
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == true)
            clock.advance(1.5)
            store.sweep()
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == false)
        }
    }

    @Test func hidingTheGalleryDropsFolderKeysOrLocks() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let folder = try await browser.send(.post, "/api/folders", json: ["path": "Private", "password": "fpw", "allowWeak": "true"]).json()
            let id = try #require(folder["id"] as? String)
            #expect(folder["unlocked"] as? Bool == true)
            try await browser.send(.post, "/api/visibility", json: ["hidden": true])
            let after = try await browser.send(.get, "/api/folders").json()["folders"] as? [[String: Any]]
            #expect(after?.first { $0["id"] as? String == id }?["unlocked"] as? Bool == false)
            #expect(try await browser.send(.get, "/api/items").status == .ok)
            // With auto-lock "immediately", hiding locks the vault.
            try await browser.send(.post, "/api/settings", json: ["autoLockMinutes": 0])
            try await browser.send(.post, "/api/visibility", json: ["hidden": true])
            #expect(try await browser.send(.get, "/api/items").status == .unauthorized)
        }
    }
}
