import Foundation
import Testing
@testable import ObscuraKit

/// Every write path, stopped at every one of its durable steps (see ``CrashHarness``):
/// catalog persist, growth, import, delete, folder protection, moving into a protected
/// folder, password change, export, import of an export, create and destroy.
@Suite struct CrashAtEveryStepTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// Runs the harness and expects no violation, and both the old and the new state
    /// among the crash images (so that the stops really straddle the write).
    func expectOldOrNew(
        name: String = #function, minimumSteps: Int = 12, setUp: (CrashFixture) throws -> Void = { _ in },
        write: @escaping (CrashFixture) throws -> Void
    ) throws {
        let outcome = try CrashHarness.everyStep(name: name, setUp: setUp, write: write)
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

    @Test func export() throws {
        try expectOldOrNew(minimumSteps: 2) { fixture in
            try fixture.a.exportVault(to: fixture.exportPath, password: pw(CrashFixture.exportPassword), iterations: crashIterations)
        }
    }

    @Test func importExport() throws {
        try expectOldOrNew(setUp: { fixture in
            // An export of a vault from another directory, under the label "imported".
            let otherRoot = try TestRoot(parent: CrashFixture.base)
            let other = try otherRoot.open()
            try other.initialize(iterations: crashIterations)
            let source = try other.createVault(password: pw("imported pw"), iterations: crashIterations)
            try source.addRaw(Array("imported".utf8), name: "imported.txt", thumbnail: [9, 9])
            try source.exportVault(to: fixture.root.path + "/in.obscura", password: pw(CrashFixture.exportPassword), iterations: crashIterations)
        }, write: { fixture in
            try fixture.directory.importVault(from: fixture.root.path + "/in.obscura", password: pw(CrashFixture.exportPassword))
        })
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
