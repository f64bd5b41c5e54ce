import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// What one real vault holds, as far as crash consistency is concerned: which of its
/// candidate passwords opens it, its folders and its items (by folder path and name).
public struct VaultState: Codable, Equatable, Sendable {
    /// Index of the candidate password that opened the vault (a password change moves
    /// it from 0 to 1).
    public var password: Int
    /// Folder paths, protected ones marked with a trailing " (protected)".
    public var folders: [String]
    /// Items as "folder path/name" (top-level items as "/name"), sorted.
    public var items: [String]
}

/// The result of auditing a vault directory after a write, interrupted or not.
public struct AuditReport: Codable, Equatable, Sendable {
    /// Slot files in data/.
    public var slots = 0
    /// Slots that open with the device credential and hold an empty catalog.
    public var decoys = 0
    /// Each known vault that a slot opens, by its label.
    public var vaults: [String: VaultState] = [:]
    /// Every broken invariant, in words; empty when the directory is sound.
    public var problems: [String] = []
    /// Pool files no present vault names: allowed (a crash between a catalog write and
    /// the unlink of old media leaves them), but counted.
    public var orphanMedia = 0
    /// Drop blobs in the inbox: allowed (drops wait for their vault's next unlock, and a
    /// crash after an intake's commit leaves blobs the next intake finds duplicates), but counted.
    public var waitingDrops = 0
}

/// Checks a vault directory the way a restarted process finds it: every slot valid
/// (decoys open with the device credential and are empty, real vaults open with a known
/// password), at least ten slots, every item's original and thumbnail present and
/// decrypting, no temporaries left after opening. Public API only, so that it works in
/// any build of the package (the kill loop's worker uses it too).
public enum VaultAudit {
    /// Audits the directory at `path`.
    ///
    /// - Parameters:
    ///   - vaults: each real vault's label and its candidate passwords.
    ///   - folderPasswords: passwords to try on every protected folder.
    ///   - outerKey: the directory's outer key when it is a version 4 container; its
    ///     recovery then runs first, and every slot file must have one size and no
    ///     version 3 magic.
    public static func run(
        path: String, secrets: any DecoySecretSource, vaults: [(label: String, passwords: [SecureBytes])],
        folderPasswords: [SecureBytes] = [], outerKey: SecureBytes? = nil
    ) throws -> AuditReport {
        var report = AuditReport()
        // Opening is what a restarted process does first: it sweeps temporaries.
        let directory = try VaultDirectory(path: path, deviceSecrets: secrets, outerKey: outerKey)
        for sub in ["data", "media"] {
            let left = try FileManager.default.contentsOfDirectory(atPath: path + "/" + sub).filter { $0.hasPrefix(".") }
            if !left.isEmpty { report.problems.append("\(sub)/ keeps \(left.count) temporaries after opening") }
        }
        let credential = DeviceSecretStore.credential(from: try secrets.load())
        let names = try directory.slotNames()
        report.slots = names.count
        if names.count < 10 { report.problems.append("only \(names.count) slots") }
        let files = try FileManager.default.contentsOfDirectory(atPath: path + "/data").filter { !$0.hasPrefix(".") }.sorted()
        if files != names { report.problems.append("data/ holds \(files.count) files for \(names.count) slots") }
        if outerKey != nil {
            if !directory.isContainer { report.problems.append("not a container") }
            let sizes = Set(try files.map { try FileManager.default.attributesOfItem(atPath: path + "/data/" + $0)[.size] as? Int ?? -1 })
            if sizes.count != 1 { report.problems.append("slot files of \(sizes.count) sizes") }
            for name in files {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path + "/data/" + name))
                defer { try? handle.close() }
                if try handle.read(upToCount: SlotFormat.magic.count).map(Array.init) == SlotFormat.magic {
                    report.problems.append("slot \(name) begins with the version 3 magic")
                }
            }
        }

        var opened = [String: SecureBytes]()
        for name in names {
            do {
                if let counts = try directory.slotCounts(name, password: credential) {
                    if counts != (0, 0) { report.problems.append("decoy \(name) holds \(counts) items and folders") }
                    report.decoys += 1
                    continue
                }
                var matched = false
                for (label, candidates) in vaults {
                    for candidate in candidates where try directory.slotCounts(name, password: candidate) != nil {
                        if opened[label] != nil { report.problems.append("\(label) opens two slots") }
                        opened[label] = candidate
                        matched = true
                    }
                }
                if !matched { report.problems.append("slot \(name) opens with no known password") }
            } catch {
                report.problems.append("slot \(name): \(error)")
            }
        }

        var named = Set<String>()
        for (label, candidates) in vaults {
            guard let password = opened[label] else { continue }
            // Observing only: the drops waiting for the vault stay where they are.
            let vault = try directory.unlock(password: password, runningChores: false)
            defer { vault.lock() }
            var state = VaultState(password: candidates.firstIndex { same($0, password) } ?? -1, folders: [], items: [])
            for folder in try vault.folders() {
                if folder.isProtected {
                    for candidate in folderPasswords where !vault.isOpen(folder) {
                        try? vault.unlockFolder(folder, password: candidate)
                    }
                }
                state.folders.append(try vault.folderPath(folder) + (folder.isProtected ? " (protected)" : ""))
            }
            for view in try vault.items() {
                // A made rendition and a Live Photo's motion are part of the item's state:
                // each is joined to it in one write.
                let rendition = view.record.renditionState == .ready ? " [rendition]" : ""
                let motion = view.record.companion.map { " [\(view.record.companionRole?.rawValue ?? "") \($0.name)]" } ?? ""
                state.items.append((view.folderPath ?? "") + "/" + view.record.name + rendition + motion)
                named.insert(view.record.mediaId + ".data.enc")
                if let thumb = view.record.thumbId { named.insert(thumb + ".thumb.enc") }
                if let made = view.record.renditionId { named.insert(made + ".data.enc") }
                if let companion = view.record.companionId { named.insert(companion + ".data.enc") }
            }
            state.items.sort()
            // Drops are the one write that could import a file twice (a crash between the
            // intake's commit and the blob's removal, FORMAT.md §10.6): every item the
            // workloads make has a name of its own.
            if Set(state.items).count != state.items.count { report.problems.append("\(label): an item is there twice") }
            let (_, skipped, problems) = try vault.verify()
            if skipped > 0 { report.problems.append("\(label): \(skipped) items in folders no known password opens") }
            report.problems += problems.map { "\(label): item \($0.itemId): \($0.message)" }
            report.vaults[label] = state
        }
        let pool = try FileManager.default.contentsOfDirectory(atPath: path + "/media").filter { !$0.hasPrefix(".") }
        report.orphanMedia = Set(pool).subtracting(named).count
        report.waitingDrops = DropInbox(vaultPath: path).blobNames().count
        return report
    }
}

/// Byte equality, for telling which candidate password opened a vault.
private func same(_ a: SecureBytes, _ b: SecureBytes) -> Bool {
    a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.elementsEqual(y) } }
}
