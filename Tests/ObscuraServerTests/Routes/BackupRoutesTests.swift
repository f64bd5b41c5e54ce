import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
import Testing
@testable import ObscuraServer

/// docs/API.md, "Backup": the state the page shows, a backup on request (made by the
/// schedule's tick, as the running server's service calls it), the wait's setting, and
/// what a locked session or a directory without a set-up gets.
@Suite struct BackupRoutesTests {
    /// Sets the harness's directory up to back up to a new local repository.
    func setUp(_ harness: ServerHarness, afterSeconds: Int = 0) throws -> BackupEngine {
        let password = SecureBytes(copying: Array("backup routes".utf8))
        let repository = try BackupRepository(harness.root + "/repo")
        let engine = BackupEngine(repository: repository, password: password)
        #expect(try engine.create())
        try FileManager.default.createDirectory(atPath: harness.root + "/keys", withIntermediateDirectories: true)
        try BackupPassword.createFile(harness.root + "/keys/backup", password: password)
        try harness.server.configuration.backupStore.save(BackupConfiguration(
            directory: harness.directory.path, repository: repository, password: .file(harness.root + "/keys/backup"),
            afterSeconds: afterSeconds))
        return engine
    }

    @Test func withoutASetUpThePageSaysSoAndNothingRuns() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let state = try await browser.send(.get, "/api/backup").json()
            #expect(state["configured"] as? Bool == false)
            #expect(try await browser.send(.post, "/api/backup").status == .conflict)
            #expect(try await browser.send(.post, "/api/backup/settings", json: ["afterSeconds": 600]).status == .conflict)
        }
    }

    @Test func aBackupOnRequestIsMadeAndShown() async throws {
        let harness = try ServerHarness()
        let engine = try setUp(harness)
        try await harness.test { browser in
            try await browser.createVault()
            _ = try await browser.upload(Array(repeating: 9, count: 5000), name: "a.bin")
            var state = try await browser.send(.get, "/api/backup").json()
            #expect(state["configured"] as? Bool == true)
            #expect(state["repository"] as? String == harness.root + "/repo")
            #expect(state["passwordIn"] as? String == "file")
            #expect(state["last"] == nil)
            #expect(try await browser.send(.post, "/api/backup").status == .accepted)
            harness.server.backups.tick()
            #expect(try await browser.send(.post, "/api/backup").status == .conflict, "one backup at a time")
            for _ in 0..<600 where state["last"] == nil || state["running"] as? Bool == true {
                try await Task.sleep(for: .milliseconds(100))
                state = try await browser.send(.get, "/api/backup").json()
            }
            let last = try #require(state["last"] as? [String: Any])
            #expect(last["succeeded"] as? Bool == true, "\(last)")
            let snapshots = try engine.snapshots()
            #expect(snapshots.map(\.shortID) == [last["snapshot"] as? String])
        }
    }

    @Test func aChangeIsBackedUpOnlyAfterTheWait() async throws {
        let clock = ManualClock()
        let harness = try ServerHarness(clock: clock)
        let engine = try setUp(harness, afterSeconds: 600)
        try await harness.test { browser in
            try await browser.createVault()
            // The wait outlasts the default auto-lock (5 minutes), and polling the backup
            // state is no use of the vault: the vault stays open 15 minutes here.
            #expect(try await browser.send(.post, "/api/settings", json: ["autoLockMinutes": 15]).status == .ok)
            // The directory changed since its (absent) last backup: a backup is due 600 s
            // after the gallery started, and every write moves it on.
            harness.server.backups.tick()
            clock.advance(599)
            harness.server.backups.tick()
            #expect(try await browser.send(.get, "/api/backup").json()["running"] as? Bool == false)
            #expect(try engine.snapshots().isEmpty)
            clock.advance(2)
            harness.server.backups.tick()
            var state = try await browser.send(.get, "/api/backup").json()
            for _ in 0..<600 where state["last"] == nil {
                try await Task.sleep(for: .milliseconds(100))
                state = try await browser.send(.get, "/api/backup").json()
            }
            #expect((state["last"] as? [String: Any])?["succeeded"] as? Bool == true)
            #expect(try engine.snapshots().count == 1)
            #expect(state["nextAt"] == nil, "nothing changed since")
        }
    }

    @Test func theWaitIsSetFromThePageAndOnlyToAnOfferedValue() async throws {
        let harness = try ServerHarness()
        _ = try setUp(harness, afterSeconds: 600)
        try await harness.test { browser in
            try await browser.createVault()
            #expect(try await browser.send(.post, "/api/backup/settings", json: ["afterSeconds": 60]).status == .ok)
            #expect(try await browser.send(.get, "/api/backup").json()["afterSeconds"] as? Int == 60)
            #expect(try harness.server.configuration.backupStore.load(directory: harness.directory.path)?.afterSeconds == 60)
            #expect(try await browser.send(.post, "/api/backup/settings", json: ["afterSeconds": 7]).status == .badRequest)
            _ = try await browser.send(.post, "/api/lock")
            #expect(try await browser.send(.get, "/api/backup").status == .unauthorized)
            #expect(try await browser.send(.post, "/api/backup").status == .unauthorized)
        }
    }
}
