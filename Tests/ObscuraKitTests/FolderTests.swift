import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// Folders changed by two requests at once (issue 16's review: a move and a delete, two
/// moves), their names, and the order of a protected folder's pages.
@Suite struct FolderTests {
    /// Runs `a` and `b` at the same moment on two threads; whether each succeeded.
    static func together(_ a: @escaping @Sendable () throws -> Void, _ b: @escaping @Sendable () throws -> Void) -> (Bool, Bool) {
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let ok = (try? (i == 0 ? a : b)()) != nil
            results.set(i, ok)
        }
        return (results.get(0), results.get(1))
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values = [false, false]
        func set(_ i: Int, _ v: Bool) { lock.withLock { values[i] = v } }
        func get(_ i: Int) -> Bool { lock.withLock { values[i] } }
    }

    @Test func twoMovesAtOnceNeverMakeACycle() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let a = try vault.createFolder("A")
        let b = try vault.createFolder("B")
        for _ in 0..<12 {
            let (ab, ba) = Self.together({ try vault.moveFolder(a, into: b) }, { try vault.moveFolder(b, into: a) })
            #expect(!(ab && ba), "both moves passed")
            let all = try vault.catalog.folders()
            for start in all {
                var seen = Set<String>()
                var at: String? = start.id
                while let id = at {
                    #expect(seen.insert(id).inserted, "a cycle through \(id)")
                    if seen.count > all.count { break }
                    at = all.first { $0.id == id }?.parentId
                }
            }
            try vault.moveFolder(try #require(try vault.catalog.folder(id: a.id)), into: nil)
            try vault.moveFolder(try #require(try vault.catalog.folder(id: b.id)), into: nil)
        }
    }

    @Test func aDeleteAndAMoveIntoItAtOnceLoseNothing() throws {
        let root = try TestRoot()
        let (vault, item, _) = try root.vaultWithPhoto(width: 64, height: 48)
        let secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        try vault.moveItems([item.id], to: secret)
        for round in 0..<12 {
            let doomed = try vault.createFolder("Doomed \(round)")
            let current = try #require(try vault.catalog.folder(id: secret.id))
            let (deleted, moved) = Self.together(
                { try vault.removeFolder("Doomed \(round)") }, { try vault.moveFolder(current, into: doomed) })
            #expect(deleted != moved, "round \(round): deleted \(deleted), moved \(moved)")
            // The protected folder, its key and its photo are all still there.
            let kept = try #require(try vault.catalog.folder(id: secret.id), "round \(round): the moved folder went")
            #expect(kept.isProtected)
            #expect(try vault.openOriginal(try vault.item(item.id)).size > 0)
            if moved { try vault.moveFolder(kept, into: nil); try vault.removeFolder("Doomed \(round)") }
        }
    }

    @Test func namesAreCheckedAlikeWhenMadeAndWhenRenamed() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        #expect(try vault.createFolder("  Trips  ").name == "Trips")
        for bad in ["", " ", ".", "..", "a\u{7}b", "new\nline", "photo\u{202E}gpj", String(repeating: "x", count: 256)] {
            #expect(throws: VaultError.self, "create \(bad.debugDescription)") { try vault.createFolder(bad) }
            #expect(throws: VaultError.self, "rename \(bad.debugDescription)") {
                try vault.renameFolder(try vault.folder(at: "Trips"), to: bad)
            }
        }
        #expect(try vault.folders().map(\.name) == ["Trips"])
    }

    /// Issue 40, point 17: "Trips/2024" failed unless "Trips" existed. A path makes the
    /// parents it lacks, as `mkdir -p` does, in the same commit; none goes through a
    /// protected folder, and a refused path makes nothing.
    @Test func aPathMakesTheParentsItLacks() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let year = try vault.createFolder("Trips/2024")
        let trips = try vault.folder(at: "Trips")
        #expect(year.parentId == trips.id && trips.parentId == nil && !trips.isProtected)
        try vault.createFolder("Trips/2025")
        #expect(try vault.folders().map { try vault.folderPath($0) } == ["Trips", "Trips/2024", "Trips/2025"])
        #expect(throws: VaultError.folderExists("Trips/2024")) { try vault.createFolder("Trips/2024") }

        let inner = try vault.createFolder("Family/Kids/Private", password: pw("fpw"), iterations: testIterations)
        #expect(inner.isProtected)
        #expect(try !vault.folder(at: "Family").isProtected && !vault.folder(at: "Family/Kids").isProtected)

        let before = try vault.folders().count
        #expect(throws: VaultError.nestedProtectedFolder) { try vault.createFolder("Family/Kids/Private/Deeper/Still") }
        #expect(throws: VaultError.self) { try vault.createFolder("New/..") }
        #expect(throws: VaultError.self) { try vault.createFolder("Newer/a\u{7}b") }
        #expect(try vault.folders().count == before, "a refused path makes no parent")
    }

    @Test func aLockedFolderIsNeitherRenamedNorMoved() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        let trips = try vault.createFolder("Trips")
        vault.lockFolder(secret)
        #expect(throws: VaultError.folderLocked("Secret")) { try vault.renameFolder(secret, to: "Mine") }
        #expect(throws: VaultError.folderLocked("Secret")) { try vault.moveFolder(secret, into: trips) }
        try vault.unlockFolder(secret, password: pw("fpw"))
        #expect(try vault.renameFolder(secret, to: "Mine").name == "Mine")
    }

    /// A protected folder's capture dates are sealed in its rows; its pages still come in
    /// capture order, newest first, and the cursor walks them without a gap or a repeat.
    @Test func aProtectedFoldersPagesAreInCaptureOrder() throws {
        let root = try TestRoot()
        let vault = try root.initialized().createVault(password: pw("pw"), iterations: testIterations)
        let dates = ["2021:05:01 10:00:00", "2023:01:09 10:00:00", "2019:12:24 10:00:00", "2022:07:04 10:00:00"]
        var paths = [String]()
        for (i, date) in dates.enumerated() {
            let path = root.path + "/p\(i).jpg"
            try Data(TestImages.cameraJPEG(width: 40 + i, height: 30, date: date, orientation: 1)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let ids = try vault.importFiles(paths).imported.map(\.id)
        let secret = try vault.createFolder("Secret", password: pw("fpw"), iterations: testIterations)
        try vault.moveItems(ids.reversed(), to: secret)
        var seen = [ItemView]()
        var cursor: String?
        repeat {
            let page = try vault.itemListing(scope: .folder(secret), after: cursor, limit: 3)
            #expect(page.total == 4)
            seen += page.items
            cursor = page.nextCursor
        } while cursor != nil
        let taken = seen.map { $0.record.takenAt ?? 0 }
        #expect(seen.count == 4 && Set(seen.map(\.record.id)) == Set(ids))
        #expect(taken == taken.sorted(by: >), "\(taken)")
    }
}
