import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
import Testing
@testable import ObscuraServer

/// The progressive delay covers every password check, and a success erases nothing
/// (docs/API.md, "Session, unlock, lock").
@Suite struct ThrottleTests {
    /// A harness whose directory already holds vaults for `passwords`, made outside the
    /// server so that making them counts as no guess.
    private func harness(vaults passwords: [String]) throws -> ServerHarness {
        // The clock stands still: a delay never runs out while a slow machine works.
        let harness = try ServerHarness(clock: ManualClock())
        for password in passwords {
            try harness.directory.createVault(password: SecureBytes(copying: Array(password.utf8)), iterations: testIterations).lock()
        }
        return harness
    }

    @Test func aKnownPasswordInterleavedWithGuessesDoesNotResetTheDelay() async throws {
        let harness = try harness(vaults: ["mine"])
        try await harness.test { browser in
            try await browser.start()
            var statuses: [HTTPResponse.Status] = []
            for round in 0..<UnlockThrottle.freeFailures + 2 {
                statuses.append(try await browser.send(.post, "/api/unlock", json: ["password": "guess \(round)"]).status)
                statuses.append(try await browser.send(.post, "/api/unlock", json: ["password": "mine"]).status)
            }
            // Four wrong guesses, whatever came between them: the next check waits.
            #expect(statuses.contains(.tooManyRequests), "\(statuses)")
            #expect(statuses.last == .tooManyRequests)
            // Another session is held up too: failures are not the guesser's alone.
            let other = browser.another()
            try await other.start()
            #expect(try await other.send(.post, "/api/unlock", json: ["password": "mine"]).status == .tooManyRequests)
        }
    }

    @Test func probingNewPasswordsThroughAPasswordChangeIsCounted() async throws {
        let harness = try harness(vaults: ["mine", "theirs"])
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/unlock", json: ["password": "mine"]).status == .ok)
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<UnlockThrottle.freeFailures + 2 {
                // 409 says "theirs" opens a vault: each answer is a guess.
                statuses.append(try await browser.send(.post, "/api/password", json: ["current": "mine", "new": "theirs", "allowWeak": "true"]).status)
            }
            #expect(Array(statuses.prefix(UnlockThrottle.freeFailures + 1)) == Array(repeating: .conflict, count: UnlockThrottle.freeFailures + 1))
            #expect(statuses.last == .tooManyRequests)
        }
    }

    @Test func folderUnlocksMeetTheDelay() async throws {
        let harness = try harness(vaults: ["mine"])
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/unlock", json: ["password": "mine"]).status == .ok)
            let folder = try await browser.send(.post, "/api/folders", json: ["path": "Private", "password": "folder pw", "allowWeak": "true"]).json()
            let id = try #require(folder["id"] as? String)
            #expect(try await browser.send(.post, "/api/folders/\(id)/lock").status == .noContent)
            var last: TestResponse?
            for _ in 0..<UnlockThrottle.freeFailures + 1 {
                last = try await browser.send(.post, "/api/folders/\(id)/unlock", json: ["password": "nope"])
                #expect(last?.status == .unauthorized)
            }
            // The failure that started the delay says so, for the page to count down.
            #expect(Int(last?.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try last?.json()["error"] as? String == "wrong folder password")
            let delayed = try await browser.send(.post, "/api/folders/\(id)/unlock", json: ["password": "folder pw"])
            #expect(delayed.status == .tooManyRequests)
            #expect(Int(delayed.headers[.retryAfter] ?? "") ?? 0 >= 1)
        }
    }

    @Test func failuresAgeOutOfTheWindowInstead() {
        let clock = Clock()
        let throttle = UnlockThrottle(now: { clock.time })
        for _ in 0..<UnlockThrottle.freeFailures { throttle.recordFailure() }
        #expect(throttle.wait() == 0)
        throttle.recordFailure()
        #expect(throttle.wait() == 2)
        clock.time += 2
        #expect(throttle.wait() == 0)
        throttle.recordFailure()
        #expect(throttle.wait() == 4)
        clock.time += UnlockThrottle.window
        #expect(throttle.count == 0)
        #expect(throttle.wait() == 0)
        // Memory stays bounded however many failures come.
        for _ in 0..<1000 { throttle.recordFailure() }
        #expect(throttle.count == UnlockThrottle.remembered)
        #expect(throttle.wait() == UnlockThrottle.maximumDelay)
    }

    private final class Clock: @unchecked Sendable {
        var time: Double = 1_000_000
    }
}
