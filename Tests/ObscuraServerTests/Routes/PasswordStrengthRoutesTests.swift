import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// Issue 19 item 6: the page's live estimate, and the server's refusal of a weak new
/// password that comes without the confirmation, on every route that takes one.
@Suite struct PasswordStrengthRoutesTests {
    static let strong = "glacier ribbon tundra vortex mango"

    @Test func theEstimateNamesClassTimeAndWeaknessAtThePurposesCost() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            let weak = try await browser.send(.post, "/api/password-strength", json: ["password": "password1"]).json()
            #expect(weak["strength"] as? String == "veryWeak")
            #expect(weak["needsConfirmation"] as? Bool == true)
            #expect(weak["weakness"] as? String == "a common password")
            // Before a vault is open, a vault password is judged at what a new vault here
            // takes: its decoys' KDF, this test directory's small count.
            #expect(weak["kdf"] as? String == "PBKDF2-HMAC-SHA256, 1,000 iterations")
            #expect((weak["summary"] as? String)?.hasPrefix("Password strength: very weak.") == true)

            let strong = try await browser.send(.post, "/api/password-strength", json: ["password": Self.strong]).json()
            #expect(strong["needsConfirmation"] as? Bool == false)
            #expect(strong["weakness"] is NSNull || strong["weakness"] == nil || strong["weakness"] as? String == "an English word")

            // A folder's derivation is judged at its own cost (100,000 iterations, more than
            // this test directory's vaults).
            let vault = try await browser.send(.post, "/api/password-strength", json: ["password": "Tr0ub4dor&3"]).json()
            let folder = try await browser.send(.post, "/api/password-strength",
                                                json: ["password": "Tr0ub4dor&3", "purpose": "folder"]).json()
            #expect(folder["kdf"] as? String == "PBKDF2-HMAC-SHA256, 100,000 iterations")
            #expect(try #require(folder["seconds"] as? Double) > (try #require(vault["seconds"] as? Double)))

            #expect(try await browser.send(.post, "/api/password-strength", json: ["password": "x", "purpose": "nope"]).status == .badRequest)
            #expect(try await browser.send(.post, "/api/password-strength", json: ["password": ""]).status == .badRequest)
        }
    }

    /// In a directory made with `--kdf argon2id` the meter judges a new vault's password
    /// against Argon2id before any vault exists, and the open vault's own KDF after: what
    /// the check on creation will use (a review found the page judging PBKDF2).
    @Test func theEstimateFollowsTheDirectorysKDF() async throws {
        let harness = try ServerHarness(kdf: .argon2id)
        try await harness.test { browser in
            try await browser.start()
            let before = try await browser.send(.post, "/api/password-strength", json: ["password": "Tr0ub4dor&3"]).json()
            #expect((before["kdf"] as? String)?.hasPrefix("Argon2id") == true, "\(before)")
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": Self.strong]).status == .created)
            let after = try await browser.send(.post, "/api/password-strength", json: ["password": "Tr0ub4dor&3"]).json()
            #expect(after["kdf"] as? String == before["kdf"] as? String)
            let folder = try await browser.send(.post, "/api/password-strength", json: ["password": "x1", "purpose": "folder"]).json()
            #expect((folder["kdf"] as? String)?.hasPrefix("Argon2id") == true, "an Argon2id vault's folders are Argon2id")
        }
    }

    @Test func theEstimateNeedsASessionAndTheCSRFToken() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            #expect(try await browser.send(.post, "/api/password-strength", json: ["password": "x"]).status == .unauthorized)
            try await browser.start()
            let forged = try await browser.send(.post, "/api/password-strength", json: ["password": "x"],
                                                headers: [.xCSRFToken: "guess"], csrf: false)
            #expect(forged.status == .forbidden)
        }
    }

    @Test func aWeakVaultPasswordIsRefusedWithoutTheConfirmation() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            let refused = try await browser.send(.post, "/api/vaults", json: ["password": "qwertyuiop"])
            #expect(refused.status == .unprocessableContent)
            #expect((try refused.json()["error"] as? String)?.hasPrefix("weak password: Password strength: very weak.") == true)
            // Only "true" confirms.
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "qwertyuiop", "allowWeak": "yes"]).status
                == .unprocessableContent)
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": "qwertyuiop", "allowWeak": "true"]).status
                == .created)
        }
        #expect(throws: Never.self) { try harness.directory.unlock(password: SecureBytes(copying: Array("qwertyuiop".utf8))).lock() }
    }

    @Test func aStrongVaultPasswordNeedsNoConfirmation() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.start()
            #expect(try await browser.send(.post, "/api/vaults", json: ["password": Self.strong]).status == .created)
        }
    }

    @Test func foldersNewPasswordsAndExportsAreCheckedToo() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            #expect(try await browser.send(.post, "/api/folders", json: ["path": "Private", "password": "19871203"]).status
                == .unprocessableContent)
            #expect(try await browser.send(.post, "/api/folders", json: ["path": "Private", "password": Self.strong]).status == .created)
            #expect(try await browser.send(.post, "/api/folders", json: ["path": "Weak", "password": "19871203", "allowWeak": "true"]).status
                == .created)
            // A folder without a password is not judged.
            #expect(try await browser.send(.post, "/api/folders", json: ["path": "Open"]).status == .created)

            #expect(try await browser.send(.post, "/api/password", json: ["current": "correct horse", "new": "letmein"]).status
                == .unprocessableContent)
            #expect(try await browser.send(.post, "/api/password", json: ["current": "correct horse", "new": Self.strong]).status
                == .noContent)

            let form = "csrf=\(browser.csrf ?? "")&password=export"
            let export = try await browser.send(.post, "/api/export", body: Array(form.utf8),
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(export.status == .unprocessableContent)
        }
    }
}
