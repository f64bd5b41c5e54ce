import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
import Testing
@testable import ObscuraServer

/// Issue 19 item 3: `POST /api/drops`, the drop page's route. It needs no session (the
/// vault is locked), so it is bounded by size and concurrency, held to this origin by its
/// header, and refuses anything that is not a well-formed drop blob (docs/FORMAT.md §10.5).
@Suite struct DropRoutesTests {
    /// The page's header, which only a same-origin script can send without a preflight.
    static let marker: HTTPFields = [DropRoutes.markerHeader: "1", .contentType: "application/octet-stream"]

    /// A drop blob of `content` to a fresh key, sealed by the engine as the page seals it.
    static func blob(_ content: [UInt8]) throws -> [UInt8] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-drop-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let inbox = DropInbox(vaultPath: scratch)
        let code = DropCode(publicKey: try HPKEExporter.KeyPair.generate().publicKey)
        let name = try inbox.drop(bytes: content, name: "photo.jpg", to: code)
        return Array(try Data(contentsOf: URL(fileURLWithPath: inbox.path + "/" + name)))
    }

    func inbox(_ harness: ServerHarness) -> [String] { DropInbox(vaultPath: harness.directory.path).blobNames() }

    @Test func aWellFormedBlobIsStoredWithoutASession() async throws {
        let harness = try ServerHarness()
        let blob = try Self.blob(Array(repeating: 7, count: 300_000))
        try await harness.test { browser in
            let response = try await browser.send(.post, DropRoutes.path, body: blob, headers: Self.marker)
            #expect(response.status == .created)
        }
        let names = inbox(harness)
        #expect(names.count == 1)
        let stored = try Data(contentsOf: URL(fileURLWithPath: DropInbox(vaultPath: harness.directory.path).path + "/" + names[0]))
        #expect(Array(stored) == blob)
    }

    @Test func anythingButADropBlobIsRefused() async throws {
        let harness = try ServerHarness()
        let blob = try Self.blob(Array("hello".utf8))
        try await harness.test { browser in
            // Not a chunked file; a blob cut short; a blob with a byte more; nothing.
            for body in [Array(repeating: UInt8(1), count: 200), Array(blob.dropLast()), blob + [0], []] {
                let response = try await browser.send(.post, DropRoutes.path, body: body, headers: Self.marker)
                #expect(response.status == .badRequest)
            }
            // A pool file's header with flags set (protected) is not a drop's.
            var protected = blob
            protected[7] = 1
            #expect(try await browser.send(.post, DropRoutes.path, body: protected, headers: Self.marker).status == .badRequest)
        }
        #expect(inbox(harness).isEmpty)
    }

    @Test func aBlobOverTheLimitIsRefusedWith413() async throws {
        // The route's bound follows the server's upload limit, here 1 KiB of content.
        let harness = try ServerHarness(uploadLimit: 1024)
        let blob = try Self.blob(Array(repeating: 3, count: 4096))
        try await harness.test { browser in
            #expect(try await browser.send(.post, DropRoutes.path, body: blob, headers: Self.marker).status == .contentTooLarge)
            let small = try Self.blob(Array(repeating: 3, count: 512))
            #expect(try await browser.send(.post, DropRoutes.path, body: small, headers: Self.marker).status == .created)
        }
        #expect(inbox(harness).count == 1)
    }

    @Test func aPostFromAnotherOriginOrWithoutThePagesHeaderIsRefused() async throws {
        let harness = try ServerHarness()
        let blob = try Self.blob(Array("hello".utf8))
        try await harness.test { browser in
            // What a form or another site's simple request can send: no header.
            let plain = try await browser.send(.post, DropRoutes.path, body: blob, headers: [.contentType: "application/octet-stream"])
            #expect(plain.status == .forbidden)
            // Another origin, header or not.
            var foreign = Self.marker
            foreign[.origin] = "http://evil.example"
            #expect(try await browser.send(.post, DropRoutes.path, body: blob, headers: foreign).status == .forbidden)
            // The header must say 1.
            let wrong: HTTPFields = [DropRoutes.markerHeader: "yes"]
            #expect(try await browser.send(.post, DropRoutes.path, body: blob, headers: wrong).status == .forbidden)
            // The preflight a cross-origin fetch with the header needs is never granted.
            let preflight = try await browser.send(.options, DropRoutes.path, headers: [
                .origin: "http://evil.example", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "x-obscura-drop",
            ])
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
            #expect(preflight.headers[.accessControlAllowHeaders] == nil)
        }
        #expect(inbox(harness).isEmpty)
    }

    @Test func theDropPageIsServedWithTheStrictHeaders() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            let page = try await browser.send(.get, "/drop")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware<GalleryContext>.contentSecurityPolicy)
            #expect(String(buffer: page.body).contains("/app/drop.js"))
        }
    }

    /// Whatever the inbox holds that is not a blob: temporaries a post left.
    func leftovers(_ harness: ServerHarness) throws -> [String] {
        let path = DropInbox(vaultPath: harness.directory.path).path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasSuffix(".data.enc") }
    }

    /// Issue 40 point 3: two posts that send their header and a few bytes, then nothing,
    /// held both drop slots for minutes. A stalled post is now cut once its pace allows
    /// (408, its temporary removed), and other drops go through meanwhile.
    @Test func aStalledPostIsCutWhileOtherDropsGoThrough() async throws {
        let harness = try ServerHarness(dropPace: BodyPace(idle: .milliseconds(600), grace: .seconds(60), minimumRate: 0))
        let blob = try Self.blob(Array(repeating: 5, count: 1000))
        try await harness.testLive { browser, port in
            let stalled = try (0..<2).map { _ in try HandPost(port: port, length: blob.count) }
            for post in stalled { post.send(Array(blob.prefix(56))) }
            for _ in 0..<3 {
                #expect(try await browser.send(.post, DropRoutes.path, body: blob, headers: Self.marker).status == .created)
            }
            for post in stalled {
                let status = await post.status(within: 20)
                #expect(status == 408, "a stalled post answered \(String(describing: status))")
            }
        }
        #expect(inbox(harness).count == 3)
        #expect(try leftovers(harness).isEmpty)
    }

    /// A post that keeps sending a byte now and then never stalls, but falls behind the
    /// route's pace and is cut too.
    @Test func aPostThatTricklesIsCutAtItsPace() async throws {
        let harness = try ServerHarness(dropPace: BodyPace(idle: .seconds(5), grace: .milliseconds(500), minimumRate: 4096))
        let blob = try Self.blob(Array(repeating: 6, count: 100_000))
        try await harness.testLive { _, port in
            let post = try HandPost(port: port, length: blob.count)
            post.send(Array(blob.prefix(60)))
            let trickle = Task {
                for byte in blob.dropFirst(60) {
                    try await Task.sleep(for: .milliseconds(50))
                    guard post.send([byte]) else { return }
                }
            }
            let status = await post.status(within: 20)
            trickle.cancel()
            #expect(status == 408, "a trickling post answered \(String(describing: status))")
        }
        #expect(inbox(harness).isEmpty)
        #expect(try leftovers(harness).isEmpty)
    }

    /// A post's body goes to the inbox as it arrives: a post that is no drop blob is
    /// refused at its header, before the rest is sent, and a post bigger than its header
    /// says is refused at the byte past it.
    @Test func aBlobIsCheckedAsItArrives() async throws {
        let harness = try ServerHarness()
        let blob = try Self.blob(Array(repeating: 7, count: 300_000))
        try await harness.testLive { _, port in
            var junk = blob
            junk[4] = 9  // version 9
            let early = try HandPost(port: port, length: junk.count)
            early.send(Array(junk.prefix(52)))
            #expect(await early.status(within: 20) == 400, "refused with the body's rest unsent")
        }
        #expect(inbox(harness).isEmpty)
        #expect(try leftovers(harness).isEmpty)
    }
}
