import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// Notes through the API (issue 19; docs/API.md, "Notes"): written, read, edited, given a
/// photo, listed as items with an excerpt, and found by a word of their body.
@Suite struct NoteRoutesTests {
    @Test func aNoteIsWrittenReadEditedAndAttached() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let photo = try await ZipRoutesTests.upload(browser, SystemRandom().bytes(100), name: "p.bin")
            #expect(try await browser.send(.post, "/api/notes", json: ["body": "x"], csrf: false).status == .forbidden)
            let made = try await browser.send(.post, "/api/notes", json: ["title": "", "body": "# Plums\nripe **damsons**"])
            #expect(made.status == .created)
            let item = try #require(try made.json()["item"] as? [String: Any])
            let id = try #require(item["id"] as? String)
            #expect(item["kind"] as? String == "note" && item["name"] as? String == "Plums")
            #expect(item["excerpt"] as? String == "# Plums\nripe **damsons**")

            let read = try await browser.send(.get, "/api/notes/\(id)").json()
            #expect(read["body"] as? String == "# Plums\nripe **damsons**")
            #expect((read["attachments"] as? [Any])?.isEmpty == true)

            let edited = try await browser.send(.post, "/api/notes/\(id)", json: ["title": "Fruit", "body": "greengages"])
            #expect(try edited.status == .ok && (edited.json()["item"] as? [String: Any])?["name"] as? String == "Fruit")
            #expect(try await browser.send(.get, "/api/notes/\(id)").json()["body"] as? String == "greengages")

            let attached = try await browser.send(.post, "/api/notes/\(id)/attach", json: ["ids": [photo]]).json()
            #expect((attached["attachments"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [photo])
            #expect(try await browser.send(.post, "/api/notes/\(id)/attach", json: ["ids": [id]]).status == .badRequest)
            #expect(try await browser.send(.get, "/api/notes/\(photo)").status == .badRequest, "a photo is not a note")

            let found = try await browser.send(.get, "/api/items?q=greengage").json()["items"] as? [[String: Any]]
            #expect(found?.compactMap { $0["id"] as? String } == [id])
            let detached = try await browser.send(.post, "/api/notes/\(id)/detach", json: ["ids": [photo]]).json()
            #expect((detached["attachments"] as? [Any])?.isEmpty == true)

            // Downloaded, the note is a Markdown file: its title with .md.
            let download = try await browser.send(.get, "/api/items/\(id)/original?download=1")
            #expect(download.status == .ok)
            #expect(download.headers[.contentDisposition]?.contains("filename=\"Fruit.md\"") == true,
                    "\(download.headers[.contentDisposition] ?? "none")")
        }
    }
}
