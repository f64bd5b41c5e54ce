import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// Ends through the API (issue 19; docs/API.md, "Ends"): counted views, what a
/// view-limited item shows outside them, and ends in time enforced while the vault is open.
@Suite struct EndRoutesTests {
    @Test func aViewLimitedItemIsShownOnlyInsideItsCountedViews() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let bytes = SystemRandom().bytes(5000)
            let id = try await ZipRoutesTests.upload(browser, bytes, name: "once.bin")
            let other = try await ZipRoutesTests.upload(browser, SystemRandom().bytes(100), name: "other.bin")

            #expect(try await browser.send(.post, "/api/items/end", json: ["ids": [id], "views": 2], csrf: false).status == .forbidden)
            let set = try await browser.send(.post, "/api/items/end", json: ["ids": [id], "views": 2])
            #expect(set.status == .ok)
            let row = try #require((try set.json()["items"] as? [[String: Any]])?.first)
            #expect(row["viewsLeft"] as? Int == 2 && row["hasThumbnail"] as? Bool == false)
            #expect(try await browser.send(.post, "/api/items/end", json: ["ids": [other], "views": 0]).status == .badRequest)

            // Outside a view: no picture, no bytes, no ZIP.
            #expect(try await browser.send(.get, "/api/items/\(id)/thumbnail").status == .notFound)
            #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .forbidden)
            #expect(try await ZipRoutesTests.post(browser, csrf: browser.csrf, ids: [id]).status == .forbidden)

            // A counted view: the bytes, until it closes.
            let first = try await browser.send(.post, "/api/items/\(id)/view")
            #expect(try first.status == .ok && first.json()["viewsLeft"] as? Int == 1)
            #expect(try await browser.send(.get, "/api/items/\(id)/original").bytes == bytes)
            #expect(try await browser.send(.get, "/api/items/\(id)/original?download=1").status == .forbidden)
            #expect(try await browser.send(.get, "/api/items/\(id)/thumbnail").status == .notFound)
            #expect(try await browser.send(.post, "/api/items/\(id)/view/close").json()["ended"] as? Bool == false)
            #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .forbidden)

            // The last one ends the item when it closes.
            let last = try await browser.send(.post, "/api/items/\(id)/view")
            #expect(try last.json()["viewsLeft"] as? Int == 0)
            #expect(try last.json()["endsAt"] as? Double != nil, "the last view is bounded in time")
            #expect(try await browser.send(.get, "/api/items/\(id)/original").bytes == bytes)
            #expect(try await browser.send(.post, "/api/items/\(id)/view").status == .gone)
            #expect(try await browser.send(.post, "/api/items/\(id)/view/close").json()["ended"] as? Bool == true)
            #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .notFound)
            let listed = try await browser.send(.get, "/api/items").json()["items"] as? [[String: Any]]
            #expect(listed?.compactMap { $0["id"] as? String } == [other])
        }
    }

    @Test func anEndInTimeIsEnforcedWhileTheVaultIsOpen() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        try await harness.test { browser in
            try await browser.createVault()
            let id = try await ZipRoutesTests.upload(browser, SystemRandom().bytes(100), name: "soon.bin")
            let set = try await browser.send(.post, "/api/items/end", json: ["ids": [id], "in": 60])
            let endsAt = (try set.json()["items"] as? [[String: Any]])?.first?["endsAt"] as? Double
            #expect(endsAt == clock.now + 60)
            #expect(try await browser.send(.post, "/api/items/end", json: ["ids": [id], "in": -5]).status == .badRequest)

            clock.advance(30)
            harness.server.store.sweep()
            #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .ok)
            clock.advance(31)
            // Past its time the item shows nothing: 410 before a sweep deletes it, 404 after.
            // (The application's own sweep runs beside the test, once a second, on this
            // clock: it may come between the two requests.)
            let original = try await browser.send(.get, "/api/items/\(id)/original").status
            #expect(original == .gone || original == .notFound, "\(original)")
            let row = try await browser.send(.get, "/api/items/\(id)").status
            #expect(row == .gone || row == .notFound, "nor its name: \(row)")
            harness.server.store.sweep()
            #expect(try await browser.send(.get, "/api/items/\(id)").status == .notFound)
            #expect((try await browser.send(.get, "/api/items").json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    /// A view that stays open gives the item's bytes for at most 600 s, the last view's bound.
    @Test func aCountedViewLastsAtMostTheBound() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        try await harness.test { browser in
            try await browser.createVault()
            let id = try await ZipRoutesTests.upload(browser, SystemRandom().bytes(100), name: "kept.bin")
            #expect(try await browser.send(.post, "/api/items/end", json: ["ids": [id], "views": 5]).status == .ok)
            #expect(try await browser.send(.post, "/api/items/\(id)/view").status == .ok)
            // In steps under the 5-minute auto-lock, each with a request: the application's
            // own sweep runs beside the test on this clock, and would lock an idle vault.
            for step in [290.0, 290, 20] {
                clock.advance(step)
                #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .ok)
            }
            clock.advance(1)
            #expect(try await browser.send(.get, "/api/items/\(id)/original").status == .forbidden)
            #expect(try await browser.send(.post, "/api/items/\(id)/view/close").json()["ended"] as? Bool == false)
            #expect(try await browser.send(.post, "/api/items/\(id)/view").json()["viewsLeft"] as? Int == 3)
        }
    }
}
