import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKeys
import ObscuraKit
import Testing
@testable import ObscuraServer

/// The passkey routes (docs/API.md, "Passkeys"; docs/PASSKEY.md §P5.4), in process, with a
/// software authenticator signing for `localhost`: enrolment behind the password, lock,
/// unlock by passkey as by password, one challenge per request, removal, and the shape
/// rules that answer 400 before anything is tried.
@Suite struct PasskeyRoutesTests {
    static let host = "localhost:8750"

    /// `POST /api/passkey/begin`'s answer.
    static func begin(_ browser: Browser, _ kind: String) async throws -> [String: Any] {
        let response = try await browser.send(.post, "/api/passkey/begin", json: ["kind": kind])
        #expect(response.status == .ok, "\(String(decoding: response.bytes, as: UTF8.self))")
        return try response.json()
    }

    /// Enrols `authenticator` as `name` in the browser's unlocked vault; the answer, and
    /// the user handle the server drew for the new credential.
    static func enrol(
        _ browser: Browser, _ authenticator: SoftAuthenticator, name: String, password: String = "correct horse"
    ) async throws -> (response: TestResponse, userID: String, tag: String) {
        let create = try await begin(browser, "create")
        let get = try await begin(browser, "get")
        var fields = authenticator.enrolment(
            createChallenge: create["challenge"] as! String, getChallenge: get["challenge"] as! String,
            userID: create["userId"] as! String)
        fields["password"] = password
        fields["name"] = name
        return (try await browser.send(.post, "/api/passkeys", json: fields), create["userId"] as! String, create["tag"] as! String)
    }

    @Test func aPasskeyIsEnrolledAndUnlocksItsVaultOnce() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        let authenticator = SoftAuthenticator()
        try await harness.test { given in
            let browser = Browser(client: given.client, token: harness.token, host: Self.host)
            try await browser.createVault()
            let create = try await Self.begin(browser, "create")
            #expect(create["rpId"] as? String == "localhost")
            #expect(try create["input"] as? String == SoftAuthenticator.text(harness.directory.passkeyPRFInput()))
            #expect((create["userId"] as? String)?.count == 22 && (create["challenge"] as? String)?.count == 43)

            let wrong = try await Self.enrol(browser, authenticator, name: "Laptop", password: "not the password").response
            #expect(wrong.status == .unauthorized)
            let (enrolled, userID, createdTag) = try await Self.enrol(browser, authenticator, name: "Laptop")
            #expect(enrolled.status == .created, "\(String(decoding: enrolled.bytes, as: UTF8.self))")
            #expect(try enrolled.json()["name"] as? String == "Laptop")
            // The tag the page named the credential with at creation is the one listed.
            #expect(try enrolled.json()["tag"] as? String == createdTag)
            let listed = try await browser.send(.get, "/api/passkeys")
            let passkeys = try #require(try listed.json()["passkeys"] as? [[String: Any]])
            let tag = try enrolled.json()["tag"] as? String
            #expect(passkeys.map { $0["name"] as? String } == ["Laptop"] && passkeys[0]["tag"] as? String == tag)

            _ = try await browser.send(.post, "/api/lock")
            let get = try await Self.begin(browser, "get")
            let body = authenticator.unlock(challenge: get["challenge"] as! String, userHandle: userID)
            let unlocked = try await browser.send(.post, "/api/unlock/passkey", json: body)
            #expect(unlocked.status == .ok, "\(String(decoding: unlocked.bytes, as: UTF8.self))")
            #expect(try await browser.send(.get, "/api/session").json()["unlocked"] as? Bool == true)

            // The challenge served one request: the same answer again opens nothing.
            _ = try await browser.send(.post, "/api/lock")
            let replay = try await browser.send(.post, "/api/unlock/passkey", json: body)
            #expect(try replay.status == .unauthorized && (replay.json()["error"] as? String) == "wrong password")
            // A signature without user verification is refused as a wrong password is.
            let unverified = authenticator.unlock(
                challenge: try await Self.begin(browser, "get")["challenge"] as! String, userHandle: nil, flags: 0x01)
            #expect(try await browser.send(.post, "/api/unlock/passkey", json: unverified).status == .unauthorized)

            // A password change keeps the passkey, or removes it on request.
            clock.advance(UnlockThrottle.maximumDelay)
            _ = try await browser.send(.post, "/api/unlock", json: ["password": "correct horse"])
            let kept = try await browser.send(.post, "/api/password", json: ["current": "correct horse", "new": "battery staple", "allowWeak": "true"])
            #expect(kept.status == .noContent)
            #expect(try (await browser.send(.get, "/api/passkeys").json()["passkeys"] as? [Any])?.count == 1)
            clock.advance(UnlockThrottle.maximumDelay)
            let dropped = try await browser.send(.post, "/api/password", json: [
                "current": "battery staple", "new": "correct horse", "allowWeak": "true", "removePasskeys": "true"])
            #expect(dropped.status == .noContent)
            #expect(try (await browser.send(.get, "/api/passkeys").json()["passkeys"] as? [Any])?.count == 0)
        }
    }

    @Test func aRemovedPasskeyOpensNothingAndAnotherVaultKeepsItsOwn() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        let first = SoftAuthenticator(), second = SoftAuthenticator()
        try await harness.test { given in
            let a = Browser(client: given.client, token: harness.token, host: Self.host)
            try await a.createVault("first vault password")
            #expect(try await Self.enrol(a, first, name: "Key", password: "first vault password").response.status == .created)
            let b = a.another()
            try await b.createVault("second vault password")
            #expect(try await Self.enrol(b, second, name: "Key", password: "second vault password").response.status == .created)
            // The same PRF output cannot be enrolled twice (it already opens a vault).
            let again = try await Self.enrol(b, first, name: "Other", password: "second vault password").response
            #expect(try again.status == .conflict && again.json()["reason"] as? String == "opensAVault")

            let removed = try await a.send(.post, "/api/passkeys/remove", json: ["password": "first vault password", "name": "Key"])
            #expect(try removed.status == .ok && (removed.json()["credentialId"] as? String) == SoftAuthenticator.text(first.credentialID))
            let missing = try await a.send(.post, "/api/passkeys/remove", json: ["password": "first vault password", "name": "Key"])
            #expect(missing.status == .notFound)
            _ = try await a.send(.post, "/api/lock")
            let stale = first.unlock(challenge: try await Self.begin(a, "get")["challenge"] as! String, userHandle: nil)
            #expect(try await a.send(.post, "/api/unlock/passkey", json: stale).status == .unauthorized)
            // Two creations, the conflict and the stale passkey were four failures of the
            // one delay that passwords and passkeys share; it runs out.
            #expect(harness.server.store.throttle.count == 4)
            clock.advance(UnlockThrottle.maximumDelay)
            let own = second.unlock(challenge: try await Self.begin(a, "get")["challenge"] as! String, userHandle: nil)
            let ownAnswer = try await a.send(.post, "/api/unlock/passkey", json: own)
            #expect(ownAnswer.status == .ok, "\(String(decoding: ownAnswer.bytes, as: UTF8.self))")
            let items = try await a.send(.get, "/api/passkeys")
            #expect(try (items.json()["passkeys"] as? [[String: Any]])?.count == 1)
        }
    }

    /// `POST /api/passkeys/check` (review UX4): the password, the name and the room are
    /// answered before the authenticator's prompts, as the enrolment would answer them,
    /// with a reason for each conflict; a wrong password counts as at the enrolment.
    @Test func anEnrolmentIsCheckedBeforeItsCeremony() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        try await harness.test { given in
            let browser = Browser(client: given.client, token: harness.token, host: Self.host)
            try await browser.createVault()
            func check(_ name: String, _ password: String = "correct horse") async throws -> TestResponse {
                try await browser.send(.post, "/api/passkeys/check", json: ["password": password, "name": name])
            }
            // The creation counted one (a creation is a sweep, as a guess is); the wrong password another.
            let created = harness.server.store.throttle.count
            #expect(try await check("Laptop", "not the password").status == .unauthorized)
            #expect(harness.server.store.throttle.count == created + 1)
            clock.advance(UnlockThrottle.maximumDelay)
            #expect(try await check("   ").status == .unprocessableContent)
            #expect(try await check("a\u{202E}b").status == .unprocessableContent)
            #expect(try await check(" Laptop ").status == .noContent)
            for index in 0..<4 {
                let name = index == 0 ? "Laptop" : "Key \(index)"
                #expect(try await Self.enrol(browser, SoftAuthenticator(), name: name).response.status == .created)
            }
            // Four enrolments and three more checks counted nothing more.
            #expect(harness.server.store.throttle.count == created + 1)
            let full = try await check("Fifth")
            #expect(try full.status == .conflict && full.json()["reason"] as? String == "limit")
            let twin = try await check("Laptop")
            #expect(try twin.status == .conflict && twin.json()["reason"] as? String == "nameTaken")
            _ = try await browser.send(.post, "/api/passkeys/remove", json: ["password": "correct horse", "name": "Key 3"])
            #expect(try await check("Fifth").status == .noContent)
            #expect(try await browser.send(.post, "/api/passkeys/check", json: ["password": "correct horse"]).status == .badRequest)
        }
    }

    @Test func passkeysNeedTheLocalhostNameAndWellFormedRequests() async throws {
        let harness = try ServerHarness()
        try await harness.test { given in
            let atAddress = given
            try await atAddress.start()
            let refused = try await atAddress.send(.post, "/api/passkey/begin", json: ["kind": "get"])
            #expect(try refused.status == .badRequest && (refused.json()["error"] as? String ?? "").contains("http://localhost:8750/"))

            let browser = Browser(client: given.client, token: harness.token, host: Self.host)
            try await browser.start()
            #expect(try await browser.send(.post, "/api/passkey/begin", json: ["kind": "create"]).status == .unauthorized)
            let authenticator = SoftAuthenticator()
            var body = authenticator.unlock(challenge: try await Self.begin(browser, "get")["challenge"] as! String, userHandle: nil)
            body["prf"] = SoftAuthenticator.text(SystemRandom().bytes(31))
            #expect(try await browser.send(.post, "/api/unlock/passkey", json: body).status == .badRequest)
            body["prf"] = "not base64url!"
            #expect(try await browser.send(.post, "/api/unlock/passkey", json: body).status == .badRequest)
            // Malformed requests test nothing: no failure was counted.
            #expect(harness.server.store.throttle.count == 0)
            // A well-formed one that opens no vault is a wrong password, and counted.
            body["prf"] = SoftAuthenticator.text(SystemRandom().bytes(32))
            let nothing = try await browser.send(.post, "/api/unlock/passkey", json: body)
            #expect(try nothing.status == .unauthorized && (nothing.json()["error"] as? String) == "wrong password")
            #expect(harness.server.store.throttle.count == 1)
        }
    }
}
