import Foundation

/// The sessions (``Vault`` objects) open on each slot of a directory, held weakly. The
/// web gallery opens one per unlock, so one slot may have several; a destroy must stop
/// every one of them, not only the one it was given.
final class SessionRegistry: @unchecked Sendable {
    // @unchecked: `bySlot` is only touched under `lock`.
    private struct Entry {
        weak var vault: Vault?
    }

    private let lock = NSLock()
    private var bySlot: [String: [Entry]] = [:]

    /// Records `vault` as a session of its slot.
    func add(_ vault: Vault) {
        lock.withLock {
            var entries = bySlot[vault.slotName, default: []].filter { $0.vault != nil }
            entries.append(Entry(vault: vault))
            bySlot[vault.slotName] = entries
        }
    }

    /// The sessions of slot `name` still alive.
    func sessions(of name: String) -> [Vault] {
        lock.withLock { bySlot[name, default: []].compactMap(\.vault) }
    }
}
