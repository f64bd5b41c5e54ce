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
            #expect(try quiet.json()["drops"] == nil && quiet.json()["dropsRefused"] == nil)
            _ = try await browser.send(.post, "/api/lock")

            let inbox = DropInbox(vaultPath: directory)
            try inbox.drop(bytes: Array("a dropped note".utf8), name: "Dropped", kind: .note, to: code)
            try inbox.drop(bytes: [0xFF], name: "Not text", kind: .note, to: code)
            let unlocked = try await browser.send(.post, "/api/unlock", json: ["password": password])
            #expect(unlocked.status == .ok)
            let said = try #require(try unlocked.json()["drops"] as? String)
            // The note that is not text is kept as a file (FORMAT.md §10.6), and said.
            #expect(said.contains("Took in 1 dropped file and 1 dropped note.") && said.contains("Kept as a file"), "\(said)")
            #expect(said.contains("Not text:"), "\(said)")
            #expect(try unlocked.json()["dropsRefused"] as? Int == 1)
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

    /// A second session's unlock of a vault another session has open takes the drops in
    /// through the one shared instance (a review found them taken through a copy thrown
    /// away at once, after which the open vault's next commit left its catalog unreadable).
    @Test func aSecondSessionsUnlockTakesDropsIntoTheSharedVault() async throws {
        let harness = try ServerHarness()
        let directory = harness.directory.path
        try await harness.test { first in
            let password = "correct horse"
            try await first.createVault(password)
            let code = try DropCode(text: try #require(try await first.send(.get, "/api/drops/code").json()["code"] as? String))
            try DropInbox(vaultPath: directory).drop(bytes: Array("dropped while open".utf8), name: "dropped.txt", to: code)

            let second = first.another()
            try await second.start()
            let unlocked = try await second.send(.post, "/api/unlock", json: ["password": password])
            #expect(try (unlocked.json()["drops"] as? String)?.contains("Took in 1 dropped file") == true)
            let seen = try await first.send(.get, "/api/items").json()["items"] as? [[String: Any]]
            #expect(seen?.compactMap { $0["name"] as? String } == ["dropped.txt"], "the first session sees the drop")

            // A commit through the first session, then a fresh unlock from the disk.
            #expect(try await first.send(.post, "/api/notes", json: ["title": "after", "body": "x"]).status == .created)
            _ = try await first.send(.post, "/api/lock")
            let third = first.another()
            try await third.start()
            #expect(try await third.send(.post, "/api/unlock", json: ["password": password]).status == .ok)
            let names = try await third.send(.get, "/api/items").json()["items"] as? [[String: Any]]
            #expect(Set(names?.compactMap { $0["name"] as? String } ?? []) == ["dropped.txt", "after"])
        }
    }

    /// Drops taken in while the vault is open are told through the session poll, and the
    /// poll that tells them is not the owner's use. (That the page then reloads nothing by
    /// itself is the browser test's: test_drop_page.py, an untouched tab locks on time.)
    @Test func theSessionPollThatTellsDropsIsNotUse() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        let directory = harness.directory.path
        try await harness.test { browser in
            try await browser.createVault("correct horse")
            let code = try DropCode(text: try #require(try await browser.send(.get, "/api/drops/code").json()["code"] as? String))
            let store = harness.server.store
            let delay = Double(Vault.defaultAutoLockMinutes) * store.minuteSeconds
            // Four minutes without use; then a drop, taken in by the sweep and told.
            clock.advance(delay - 60)
            try DropInbox(vaultPath: directory).drop(bytes: Array("from a stranger".utf8), name: "x.txt", to: code)
            store.sweep()
            #expect(try await browser.send(.get, "/api/session").json()["drops"] as? String != nil)
            clock.advance(61)
            store.sweep()
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == false)
        }
    }
}
