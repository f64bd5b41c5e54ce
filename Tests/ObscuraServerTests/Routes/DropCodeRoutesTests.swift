import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraKit
import Testing
@testable import ObscuraServer

/// docs/API.md, "Drop code": the settings dialog's drop code, shown only to an unlocked
/// session, and the same at every unlock (it is kept in the catalog, §10.1).
@Suite struct DropCodeRoutesTests {
    @Test func anUnlockedSessionGetsTheVaultsCodeAndItsLink() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.get, "/api/drops/code").status == .unauthorized, "no vault is open yet")
            let password = "correct horse"
            let created = try await browser.send(.post, "/api/vaults", json: ["password": password, "allowWeak": "true"])
            #expect(created.status == .created)

            let first = try await browser.send(.get, "/api/drops/code")
            #expect(first.status == .ok)
            let code = try #require(try first.json()["code"] as? String)
            #expect(code.hasPrefix("DROPS-") && code.count == 75)
            #expect(try DropCode(text: code).text == code, "a valid code, in its display form")
            #expect(try first.json()["link"] as? String == "/drop#" + code)

            _ = try await browser.send(.post, "/api/lock")
            #expect(try await browser.send(.get, "/api/drops/code").status == .unauthorized)
            #expect(try await browser.send(.post, "/api/unlock", json: ["password": password]).status == .ok)
            #expect(try await browser.send(.get, "/api/drops/code").json()["code"] as? String == code, "the same code at every unlock")
        }
    }
}
