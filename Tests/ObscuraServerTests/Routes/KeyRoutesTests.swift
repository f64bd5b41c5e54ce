import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
import Testing
@testable import ObscuraServer
import ObscuraKeys

/// docs/API.md, "Outer key": the key's state, shown only to an unlocked session, and the
/// type-back check of docs/FORMAT.md §4.3. The keyring's side (the item marked
/// confirmed) is tests/browser/test_outer_key.py, against a real gnome-keyring.
@Suite struct KeyRoutesTests {
    @Test func theKeyIsShownToAnUnlockedSessionAndOneOfItsGroupsIsCheckedBack() async throws {
        let key = SecureBytes(randomCount: KeyKind.byteCount)
        let harness = try ServerHarness(outerKey: OuterKeyCustody(key: key, keyFile: "/home/me/outer.key"))
        try await harness.test { browser in
            try await browser.start()
            for (method, path) in [(HTTPRequest.Method.get, "/api/keys/outer"), (.post, "/api/keys/outer/show"), (.post, "/api/keys/outer/verify")] {
                #expect(try await browser.send(method, path, json: [:]).status == .unauthorized, "\(path) before any unlock")
            }
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "correct horse", "allowWeak": "true"]).status == .created)
            let state = try await browser.send(.get, "/api/keys/outer").json()
            #expect(state["kept"] as? String == "file" && state["path"] as? String == "/home/me/outer.key" && state["confirmed"] as? Bool == true)
            #expect(try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": "0000-0000", "group": "1"]).status == .conflict,
                    "a check before the key was shown has no group to ask")
            #expect(try await browser.send(.post, "/api/keys/outer/show", json: [:], csrf: false).status == .forbidden)

            let shown = try await browser.send(.post, "/api/keys/outer/show", json: [:])
            #expect(shown.status == .ok)
            let body = try shown.json()
            let text = try #require(body["text"] as? String)
            let group = try #require(body["group"] as? Int)
            #expect(try KeyText.decode(SecureBytes(copying: Array(text.utf8)), kind: .outer) == key, "the directory's key, in its §4.3 text")
            #expect(try KeyWords.decode(SecureBytes(copying: Array(try #require(body["words"] as? String).utf8))) == key)
            let groups = text.split(separator: "-").map(String.init)
            #expect((1...13).contains(group) && groups.count == 15)

            let wrong = try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": "UUUU-" + groups[14], "group": "\(group)"])
            #expect(wrong.status == .unprocessableContent)
            #expect(try wrong.json()["error"] as? String == "That does not match group \(group) and the last group of the key.")

            // A second show (another tab) draws a new group: the first question's answer is
            // refused as stale, not as wrong.
            let again = try await browser.send(.post, "/api/keys/outer/show", json: [:]).json()["group"] as? Int
            if again != group {
                let stale = try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": groups[group] + groups[14], "group": "\(group)"])
                #expect(stale.status == .conflict)
            }
            let asked = try #require(again)
            let right = try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": groups[asked].lowercased() + groups[14], "group": "\(asked)"])
            #expect(right.status == .ok)
            #expect(try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": groups[asked] + groups[14], "group": "\(asked)"]).status == .conflict,
                    "a check is answered once: the next needs the key shown again")

            _ = try await browser.send(.post, "/api/lock")
            #expect(try await browser.send(.post, "/api/keys/outer/show", json: [:]).status == .unauthorized)
        }
    }

    /// The launch link alone lets its holder make a vault and so unlock one: a server on
    /// another address than loopback never shows the key (docs/SECURITY.md, "The gallery").
    @Test func aServerBeyondLoopbackNeverShowsTheKey() async throws {
        let key = SecureBytes(randomCount: KeyKind.byteCount)
        let harness = try ServerHarness(outerKey: OuterKeyCustody(key: key, keyFile: "/home/me/outer.key"), host: "0.0.0.0")
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "correct horse", "allowWeak": "true"]).status == .created)
            #expect(try await browser.send(.get, "/api/keys/outer").json()["shown"] as? Bool == false)
            let shown = try await browser.send(.post, "/api/keys/outer/show", json: [:])
            #expect(shown.status == .forbidden)
            #expect(!String(decoding: shown.body.readableBytesView, as: UTF8.self).contains("OUTER-"))
            #expect(try await browser.send(.post, "/api/keys/outer/verify", json: ["answer": "0000-0000", "group": "1"]).status == .forbidden)
        }
    }

    @Test func aDirectoryWithoutAnOuterKeySaysSo() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "correct horse", "allowWeak": "true"]).status == .created)
            #expect(try await browser.send(.get, "/api/keys/outer").json()["kept"] as? String == "none")
            #expect(try await browser.send(.post, "/api/keys/outer/show", json: [:]).status == .notFound)
        }
    }
}
