import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// Every write path, stopped at every one of its durable steps (see ``CrashHarness``):
/// catalog persist, growth, import, delete, folder protection, moving into a protected
/// folder, password change, passkey enrolment and removal, export, import of an export,
/// create and destroy.
@Suite struct CrashAtEveryStepTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// Runs the harness and expects no violation, and both the old and the new state
    /// among the crash images (so that the stops really straddle the write).
    func expectOldOrNew(
        name: String = #function, minimumSteps: Int = 12, setUp: (CrashFixture) throws -> Void = { _ in },
        stops: ((Int) -> [Int])? = nil, write: @escaping (CrashFixture) throws -> Void
    ) throws {
        let outcome = try CrashHarness.everyStep(name: name, setUp: setUp, stops: stops, write: write)
        // The figures docs/HARDENING.md quotes.
        print("crash harness: \(name): \(outcome.steps) steps, \(outcome.stops.count) stopped at, \(2 * outcome.stops.count) images checked, "
              + "old \(outcome.sawOld), new \(outcome.sawNew), \(outcome.failures.count) failures")
        #expect(outcome.steps >= minimumSteps)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
        #expect(outcome.sawOld > 0 && outcome.sawNew > 0, "old \(outcome.sawOld), new \(outcome.sawNew)")
    }

    @Test func persist() throws {
        try expectOldOrNew { try $0.a.createFolder("Trips") }
    }

    @Test func growth() throws {
        // A setting longer than the first size range: every slot must grow. (A folder
        // name did this until names were held to 255 bytes.)
        try expectOldOrNew { try $0.a.setSetting("growth", String(repeating: "x", count: SlotSizing.base)) }
    }

    @Test func importFiles() throws {
        try expectOldOrNew { fixture in
            _ = try fixture.a.importFiles([Self.fixtures + "/gradient.png", Self.fixtures + "/gradient.gif"])
        }
    }

    @Test func delete() throws {
        try expectOldOrNew { fixture in
            try fixture.a.deleteItems(try fixture.a.items().map(\.record.id))
        }
    }

    @Test func protectFolder() throws {
        try expectOldOrNew { fixture in
            try fixture.a.createFolder("Secret", password: pw(CrashFixture.folderPassword), iterations: crashIterations)
        }
    }

    @Test func moveIntoProtectedFolder() throws {
        try expectOldOrNew(setUp: { fixture in
            try fixture.a.createFolder("Secret", password: pw(CrashFixture.folderPassword), iterations: crashIterations)
        }, write: { fixture in
            let top = try fixture.a.items().filter { $0.folderPath == nil }.map(\.record.id)
            try fixture.a.moveItems(top, to: try fixture.a.folder(at: "Secret"))
        })
    }

    @Test func changePassword() throws {
        try expectOldOrNew { try $0.a.changePassword(to: pw("a new pw")) }
    }

    /// A credential commit that writes layout B (docs/FORMAT.md §9.7; review PR8 c): at
    /// every stop the image opens by its password, so its rows and its block 0 agree.
    @Test func enrolPasskey() throws {
        try expectOldOrNew { fixture in
            try fixture.a.enrolPasskey(name: "Crash", password: pw("a pw"), prf: SecureBytes(randomCount: 32),
                                       credential: VaultPasskeysTests.credential())
        }
    }

    /// The credential commit back to layout A, and its cover commit.
    @Test func removePasskey() throws {
        try expectOldOrNew(setUp: { fixture in
            try fixture.a.enrolPasskey(name: "Crash", password: pw("a pw"), prf: SecureBytes(randomCount: 32),
                                       credential: VaultPasskeysTests.credential())
        }, write: { fixture in
            try fixture.a.removePasskey(named: "Crash", password: pw("a pw"))
        })
    }

    @Test func export() throws {
        try expectOldOrNew(minimumSteps: 2) { fixture in
            try fixture.a.exportVault(to: fixture.exportPath, password: pw(CrashFixture.exportPassword), iterations: crashIterations)
        }
    }

    @Test func importExport() throws {
        try expectOldOrNew(setUp: Self.exportToImport) { fixture in
            try fixture.directory.importVault(from: fixture.root.path + "/in.obscura", password: pw(CrashFixture.exportPassword))
        }
    }

    /// The end of an import's commit, every other step: a failure after the new superblocks
    /// reached the disk left the container needing recovery, and the import took that for
    /// "not landed" and removed the pool files the landed slot names (found by a drawn
    /// stop; fixed in `VaultDirectory.importVault`).
    @Test func importExportCommitEnd() throws {
        try expectOldOrNew(setUp: Self.exportToImport, stops: { total in Array(stride(from: total - 24, to: total, by: 2)) }) { fixture in
            try fixture.directory.importVault(from: fixture.root.path + "/in.obscura", password: pw(CrashFixture.exportPassword))
        }
    }

    /// An export of a vault from another directory, under the label "imported".
    static func exportToImport(_ fixture: CrashFixture) throws {
        let otherRoot = try TestRoot(parent: CrashFixture.base)
        let other = try otherRoot.open()
        try other.initialize(iterations: crashIterations)
        let source = try other.createVault(password: pw("imported pw"), iterations: crashIterations)
        try source.addRaw(Array("imported".utf8), name: "imported.txt", thumbnail: [9, 9])
        try source.exportVault(to: fixture.root.path + "/in.obscura", password: pw(CrashFixture.exportPassword), iterations: crashIterations)
    }

    @Test func destroy() throws {
        try expectOldOrNew { fixture in
            try fixture.directory.destroy(fixture.b)
        }
    }

    @Test func create() throws {
        try expectOldOrNew { fixture in
            _ = try fixture.directory.createVault(password: pw("c pw"), iterations: crashIterations)
        }
    }
}
