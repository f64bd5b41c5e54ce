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

    /// The unlock's answer says what the intake took in, refusals included, so that the
    /// gallery can tell the owner once (docs/API.md "Unlock"); with nothing dropped it says nothing.
    @Test func theUnlockSaysWhatItTookInFromTheInbox() async throws {
        let harness = try ServerHarness()
        let directory = harness.directory.path
        try await harness.test { browser in
            try await browser.start()
            let password = "correct horse"
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": password, "allowWeak": "true"]).status == .created)
            let code = try DropCode(text: try #require(try await browser.send(.get, "/api/drops/code").json()["code"] as? String))
            _ = try await browser.send(.post, "/api/lock")
            let quiet = try await browser.send(.post, "/api/unlock", json: ["password": password])
            #expect(try quiet.json()["drops"] == nil)
            _ = try await browser.send(.post, "/api/lock")

            let inbox = DropInbox(vaultPath: directory)
            try inbox.drop(bytes: Array("a dropped note".utf8), name: "Dropped", kind: .note, to: code)
            try inbox.drop(bytes: [0xFF], name: "Not text", kind: .note, to: code)
            let unlocked = try await browser.send(.post, "/api/unlock", json: ["password": password])
            #expect(unlocked.status == .ok)
            let said = try #require(try unlocked.json()["drops"] as? String)
            #expect(said.contains("Took in 1 dropped file") && said.contains("Not text:"), "\(said)")
        }
    }

    /// A full inbox refuses the drop page's post with 507 (docs/FORMAT.md §10.5).
    @Test func aFullInboxRefusesADropWith507() async throws {
        let harness = try ServerHarness()
        let inbox = DropInbox(vaultPath: harness.directory.path)
        let blob = try DropRoutesTests.blob(Array("hello".utf8))
        try FileManager.default.createDirectory(atPath: inbox.path, withIntermediateDirectories: true)
        for i in 0..<DropInbox.maximumBlobs {
            #expect(FileManager.default.createFile(atPath: inbox.path + "/.pending-\(i)", contents: nil))
        }
        try await harness.test { browser in
            let refused = try await browser.send(.post, DropRoutes.path, body: blob, headers: DropRoutesTests.marker)
            #expect(refused.status.code == 507)
        }
        #expect(inbox.blobNames().isEmpty)
    }
}
