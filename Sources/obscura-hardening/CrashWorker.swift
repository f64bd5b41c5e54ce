import Foundation
import ObscuraCatalog
import ObscuraCrashSupport
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import ObscuraKeys

/// The process scripts/crash-kill starts and kills. `setup` makes a workspace; each `op`
/// picks a write, learns the state it leads to by running it whole on a copy of the
/// workspace, prints `go OP`, and runs it for real (the driver sends SIGKILL at a random
/// moment after `go`); `check` audits what is left against the states before and after.
enum CrashWorker {
    /// Every write the loop interrupts.
    enum Op: String, CaseIterable, Codable {
        case persist, importFiles = "import", delete, protect, move, passwd, export
        case importExport = "import-export", destroy, create, rendition, live
        case end, lastView = "last-view", note, drop
    }

    /// What `op` wrote for `check`: the write, and the images before and after it.
    struct Expected: Codable {
        var op: Op
        var old: CrashImage
        var new: CrashImage
    }

    static func setUp(_ ws: Workspace, fixtures: String) throws {
        try? FileManager.default.removeItem(atPath: ws.root)
        for sub in ["out", "src", "config"] {
            try FileManager.default.createDirectory(atPath: ws.root + "/" + sub, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: fixtures + "/gradient.jpg", toPath: ws.root + "/src/base.jpg")
        // In a scope of its own, so the directory (and its lock) is released before the audit.
        do {
            let directory = try VaultDirectory(path: ws.vault, deviceSecrets: ws.secrets, create: true)
            try directory.initialize(iterations: Workspace.iterations, outerKey: ws.outerKey())
            let a = try directory.createVault(password: Workspace.labels[0].passwords[0], iterations: Workspace.iterations)
            let b = try directory.createVault(password: Workspace.labels[1].passwords[0], iterations: Workspace.iterations)
            try a.createFolder("Albums")
            _ = try a.importFiles(try sources(ws, tag: "setup-a"))
            _ = try b.importFiles(try sources(ws, tag: "setup-b"))
        }
        try Workspace.write(try ws.audit(), to: ws.lastImage)
    }

    static func op(_ ws: Workspace) throws {
        // Every write opens vault a, and an unlock is a write of its own when it has chores
        // (Vault.runUnlockChores): a drop a killed `drop` left in the inbox (FORMAT.md §10.6),
        // an item whose end a killed `end` gave. The next write's unlock would do them inside
        // its window, and a kill between them and the write picked leaves neither state.
        // Done here, before the window.
        var old = try Workspace.read(CrashImage.self, from: ws.lastImage)
        if try settleChores(ws) {
            old = try ws.audit()
        }
        let a = old.report.vaults["a"]
        let protected = a?.folders.contains { $0.hasSuffix(" (protected)") } ?? false
        let present = Set(old.report.vaults.keys)
        let ops = Op.allCases.filter { op in
            switch op {
            case .delete, .end, .lastView: return !(a?.items.isEmpty ?? true)
            case .move: return protected && (a?.items.contains { $0.hasPrefix("/") } ?? false)  // a top-level item
            case .importExport: return !present.contains("imported")
            case .destroy: return present.contains("imported") || present.contains("c")
            case .create: return !present.contains("c")
            default: return true
            }
        }
        // The driver draws the pick from its seed (scripts/crash-kill --seed), so that a
        // seed repeats the sequence of writes; by hand, any write.
        let pick = ProcessInfo.processInfo.environment["OBSCURA_CRASH_PICK"].flatMap { Int($0) }
        let op = pick.map { ops[$0 % ops.count] } ?? ops.randomElement()!
        let tag = freshTag()
        // Inputs the write reads, made before the kill window opens.
        switch op {
        case .importFiles: _ = try sources(ws, tag: tag)
        case .importExport: try makeSourceExport(ws)
        case .rendition:
            // An HEVC clip imported now, outside the window: the write killed is the
            // rendition's own commit, from "pending" (old) to "ready" (new).
            try importClip(ws, tag: tag)
            old = try ws.audit()
        case .live:
            // A Live Photo's movie imported now, outside the window: the write killed is
            // the import of its still, whose one commit absorbs the movie's item.
            try importMotion(ws, tag: tag)
            old = try ws.audit()
        case .export:
            if unlink(ws.exportPath) == 0 { old.export = .absent }
        case .end, .lastView:
            // The end is given now, outside the window: the write killed is the deletion
            // it leads to, by time (enforcement) or by the close of the last view.
            try prepareEnd(ws, lastView: op == .lastView)
            old = try ws.audit()
        case .note:
            // A note is written now, outside the window, if vault a has none: the write
            // killed is its edit (a new body sealed, the catalog committed, the old removed).
            try prepareNote(ws)
            old = try ws.audit()
        case .drop:
            // A photo is dropped now, outside the window, to vault a's code: the write
            // killed is the intake at a's unlock (import, commit, then the blob's removal).
            try prepareDrop(ws, tag: tag)
            old = try ws.audit()
        default: break
        }
        let shadow = try ws.shadow(at: ws.root + "/shadow")
        try perform(op, in: shadow, tag: tag)
        let new = try shadow.audit()
        try FileManager.default.removeItem(atPath: shadow.root)
        try Workspace.write(Expected(op: op, old: old, new: new), to: ws.expected)

        // Unbuffered: the driver starts its kill timer when it reads this line.
        FileHandle.standardOutput.write(Data("go \(op.rawValue)\n".utf8))
        try perform(op, in: ws, tag: tag)
        print("done")
    }

    /// Audits the workspace; prints one JSON line with the outcome ("old", "new" or
    /// "fail") and remembers the image as the next write's old state.
    static func check(_ ws: Workspace) throws -> Bool {
        let expected = try Workspace.read(Expected.self, from: ws.expected)
        let image = try ws.audit()
        let violations = image.violations(old: expected.old, new: expected.new)
        let outcome = !violations.isEmpty ? "fail" : image.sameState(as: expected.old) ? "old" : "new"
        try Workspace.write(image, to: ws.lastImage)
        let line: [String: String] = [
            "op": expected.op.rawValue, "outcome": outcome, "violations": violations.joined(separator: "; "),
            "orphans": "\(image.report.orphanMedia)", "partials": "\(image.partialExports)",
        ]
        print(String(decoding: try JSONEncoder().encode(line), as: UTF8.self))
        return violations.isEmpty
    }

    /// Runs `op` on `ws`; `tag` names whatever the write creates, the same in the copy and the real run.
    static func perform(_ op: Op, in ws: Workspace, tag: String) throws {
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        // Open, so that a delete or move may pick any item, as the audit lists them all.
        for folder in try a.folders() where folder.isProtected {
            try a.unlockFolder(folder, password: Workspace.folderPassword)
        }
        switch op {
        case .persist:
            try a.createFolder("f-" + tag)
        case .importFiles:
            let report = try a.importFiles(try sources(ws, tag: tag, create: false))
            guard report.failures.isEmpty else { throw WorkerError("import failed: \(report.failures)") }
        case .delete:
            let items = try a.items().sorted { $0.record.name < $1.record.name }
            try a.deleteItems([items[0].record.id])
        case .protect:
            try a.createFolder("s-" + tag, password: Workspace.folderPassword, iterations: Workspace.iterations)
        case .move:
            let folder = try a.folders().filter(\.isProtected).sorted { $0.name < $1.name }[0]
            let top = try a.items().filter { $0.folderPath == nil }.sorted { $0.record.name < $1.record.name }
            try a.moveItems([top[0].record.id], to: folder)
        case .passwd:
            let next = Workspace.labels[0].passwords.first { (try? directory.unlock(password: $0, runningChores: false)) == nil }!
            try a.changePassword(to: next)
        case .export:
            try a.exportVault(to: ws.exportPath, password: Workspace.exportPassword, iterations: Workspace.iterations)
        case .importExport:
            try directory.importVault(from: ws.root + "/src/in.obscura", password: Workspace.exportPassword)
        case .destroy:
            let label = (try? directory.unlock(password: Workspace.labels[2].passwords[0], runningChores: false)) != nil ? 2 : 3
            try directory.destroy(try directory.unlock(password: Workspace.labels[label].passwords[0]))
        case .create:
            _ = try directory.createVault(password: Workspace.labels[3].passwords[0], iterations: Workspace.iterations)
        case .rendition:
            // This clip's alone: one commit. A clip an earlier kill left pending stays so,
            // or the write would be two commits, and a kill between them neither state.
            let clip = try a.items().first { $0.record.name == "clip-\(tag).mov" }
            guard let clip, try a.makeRendition(clip.record.id) == .ready else { throw WorkerError("rendition not made") }
        case .end:
            // The unlock above ran the ends chore (Vault.runUnlockChores): that deletion is the write.
            guard a.unlockChores.ended >= 1 else {
                throw WorkerError("no item ended at unlock: \(a.unlockChores.failed.values.joined(separator: "; "))")
            }
        case .lastView:
            guard let row = try a.items().first(where: { $0.record.isInLastView }), try a.closeView(row.record.id) else {
                throw WorkerError("no last view to close")
            }
        case .note:
            // A new title each time: the audit tells old from new by name.
            guard let note = try a.items().first(where: { isEditableNote($0.record) }) else { throw WorkerError("no note to edit") }
            try a.editNote(note.record.id, title: "note-" + tag, body: "edited at \(tag)\n")
        case .drop:
            // The unlock above took the drop in: that intake is the write.
            break
        case .live:
            let still = ws.root + "/src/live-\(tag).jpg"
            try Data(try TestImages.livePhotoJPEG(identifier: liveIdentifier(tag))).write(to: URL(fileURLWithPath: still))
            let report = try a.importFiles([still])
            guard report.imported.first?.isLivePhoto == true else { throw WorkerError("the still took no motion in: \(report)") }
        }
    }

    /// Drops a new photo for vault a in the inbox (FORMAT.md §10), with no key, as
    /// `obscura drop` does; the code is read from the vault beforehand.
    static func prepareDrop(_ ws: Workspace, tag: String) throws {
        let code = try {
            let directory = try ws.open()
            let a = try ws.vaultA(directory)
            defer { a.lock() }
            return try a.dropCode()
        }()
        let photo = try sources(ws, tag: "drop-" + tag)[0]
        try DropInbox(vaultPath: ws.vault).drop(file: photo, name: "dropped-\(tag).jpg", to: code)
    }

    /// Unlocks vault a once, running its unlock chores; true when one changed the vault.
    static func settleChores(_ ws: Workspace) throws -> Bool {
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        let chores = a.unlockChores
        guard chores.failed.isEmpty else {
            throw WorkerError("unlock chores failed: \(chores.failed.values.joined(separator: "; "))")
        }
        return chores.drops != DropIntake() || chores.expiredTrash > 0 || chores.ended > 0
    }

    /// Writes a note in vault a when it has none without an end, for the `note` op to edit:
    /// an `end` or `last-view` run may have given the only one an end, and an ended note
    /// refuses an edit.
    static func prepareNote(_ ws: Workspace) throws {
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        if try a.items().contains(where: { isEditableNote($0.record) }) { return }
        // A title of its own: a note with an end (one a killed `last-view` left in its
        // last view) may still be called "note", and the audit counts a name twice as a
        // problem (seed 1747766732, run 27).
        try a.addNote(title: "note-" + freshTag(), body: "written before the window\n")
    }

    /// Eight random characters that name what one write creates, unique across runs.
    static func freshTag() -> String { UUID().uuidString.prefix(8).lowercased() }

    /// A note with no end: one the `note` op may edit.
    static func isEditableNote(_ item: ItemRecord) -> Bool { item.kind == .note && hasNoEnd(item) }

    /// Whether `item` has neither a time nor a count of views as its end.
    static func hasNoEnd(_ item: ItemRecord) -> Bool { item.endsAt == nil && item.viewsLeft == nil }

    /// Gives vault a's first item without an end (by name) an end that has come by the time this
    /// returns, or, with `lastView`, an end of one view whose view is then taken.
    static func prepareEnd(_ ws: Workspace, lastView: Bool) throws {
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        for folder in try a.folders() where folder.isProtected {
            try a.unlockFolder(folder, password: Workspace.folderPassword)
        }
        // Not one a killed earlier run left in its last view (its end is set already).
        let withoutEnd = { try a.items().map(\.record).filter(hasNoEnd) }
        var candidates = try withoutEnd()
        if candidates.isEmpty {
            // Earlier ends, last views and deletes can use up vault a's items (seed
            // 27263632938679 did by run 10): one more, before the window opens.
            _ = try a.importFiles(try sources(ws, tag: "end-" + freshTag()))
            candidates = try withoutEnd()
        }
        guard let first = candidates.sorted(by: { $0.name < $1.name }).first else { throw WorkerError("no item without an end") }
        if lastView {
            try a.setEnd([first.id], ItemEnd(views: 1))
            _ = try a.openView(first.id)
        } else {
            try a.setEnd([first.id], ItemEnd(at: Date().addingTimeInterval(0.05)))
            usleep(100_000)
        }
    }

    /// The content identifier of the Live Photo named after `tag`.
    static func liveIdentifier(_ tag: String) -> String { "LIVE-" + tag.uppercased() }

    /// Imports into vault a the movie of a Live Photo named after `tag`; its still comes later.
    static func importMotion(_ ws: Workspace, tag: String) throws {
        let movie = try TestImages.livePhotoMovie(in: ws.root + "/src", identifier: liveIdentifier(tag), name: "live-\(tag).mov")
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        let report = try a.importFiles([movie])
        guard report.imported.first?.pairKey != nil else { throw WorkerError("the movie carries no identifier: \(report)") }
    }

    /// Imports into vault a a new HEVC clip named after `tag`, whose rendition is pending.
    static func importClip(_ ws: Workspace, tag: String) throws {
        let clip = ws.root + "/src/clip-\(tag).mov"
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=1:size=320x240:rate=25",
                            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                            "-pix_fmt", "yuv420p", "-metadata", "comment=\(tag)", "-y", clip]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { throw WorkerError("ffmpeg could not make the clip") }
        let directory = try ws.open()
        let a = try ws.vaultA(directory)
        defer { a.lock() }
        let report = try a.importFiles([clip])
        guard report.imported.first?.renditionState == .pending else { throw WorkerError("the clip needs no rendition: \(report)") }
    }

    /// Two new files to import, named after `tag`: a photo (the fixture JPEG with random
    /// bytes after its end, so its content is new) and a small text file.
    static func sources(_ ws: Workspace, tag: String, create: Bool = true) throws -> [String] {
        let folder = ws.root + "/src/in-" + tag
        let files = [folder + "/photo-\(tag).jpg", folder + "/note-\(tag).txt"]
        guard create else { return files }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let noise = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: ws.root + "/src/base.jpg"))
        try (jpeg + noise).write(to: URL(fileURLWithPath: files[0]))
        try Data(Array("note \(tag)".utf8) + noise).write(to: URL(fileURLWithPath: files[1]))
        return files
    }

    /// A fresh export, from a vault of its own directory, of the vault labelled "imported".
    static func makeSourceExport(_ ws: Workspace) throws {
        let source = ws.root + "/src/source"
        try? FileManager.default.removeItem(atPath: source)
        unlink(ws.root + "/src/in.obscura")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let directory = try VaultDirectory(
            path: source + "/vault", deviceSecrets: DeviceSecretStore(path: source + "/secret"),
            outerKey: SecureBytes(randomCount: 32), create: true)
        try directory.initialize(iterations: Workspace.iterations)
        let vault = try directory.createVault(password: Workspace.labels[2].passwords[0], iterations: Workspace.iterations)
        defer { vault.lock() }
        _ = try vault.importFiles(try sources(ws, tag: "export-" + freshTag()))
        try vault.exportVault(to: ws.root + "/src/in.obscura", password: Workspace.exportPassword, iterations: Workspace.iterations)
    }
}

/// A failure of the worker itself (not of the code under test).
struct WorkerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
