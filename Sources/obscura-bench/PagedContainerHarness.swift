import Foundation
import GRDB
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraPages
import ObscuraStore

/// A container directory of inner format 2 whose slots hold paged catalogs
/// (docs/FORMAT.md §8.12, §9), for the package's benchmarks until vaults keep their
/// catalogs this way: it creates the slots, opens a catalog in one of them, and reports
/// what each commit wrote.
package final class PagedContainerHarness {
    private let container: SlotContainer
    private var stores: [SlotPageStore] = []

    private init(container: SlotContainer) { self.container = container }

    /// Creates `slots` slots in the empty directory `path` under the outer key `key`,
    /// switched to inner format 2.
    package static func create(path: String, key: SecureBytes, slots: Int) throws -> PagedContainerHarness {
        let container = try SlotContainer.create(
            files: DiskSlotFiles(path: path), key: try OuterKey(key), streams: [[UInt8]](repeating: [], count: slots))
        try container.commit(innerFormat: .blocks)
        return PagedContainerHarness(container: container)
    }

    /// Opens the directory `path` (recovery first).
    package static func open(path: String, key: SecureBytes) throws -> PagedContainerHarness {
        PagedContainerHarness(container: try SlotContainer.open(files: DiskSlotFiles(path: path), key: try OuterKey(key)))
    }

    /// The catalog of slot `index` under `mek`: a new one with the vault schema when
    /// `create`, else the one the slot holds (its root only is read).
    package func catalog(slot index: Int, mek: SecureBytes, create: Bool) throws -> PagedCatalog {
        let store = SlotPageStore(container: container, slot: container.slots[index])
        stores.append(store)
        guard create else { return try PagedCatalog.open(store: store, mek: mek, headerBlock: try store.readBlock(0)) }
        let catalog = try PagedCatalog.create(store: store, mek: mek, headerPrefix: [UInt8](repeating: 0, count: 136))
        try Self.applySchema(catalog.queue)
        return catalog
    }

    /// Applies the vault catalog's schema (docs/FORMAT.md §3.3) to `database`.
    package static func applySchema(_ database: DatabaseQueue) throws {
        try CatalogSchema.migrator.migrate(database)
    }

    /// What the last commit through any catalog of this harness wrote, per slot.
    package var lastCommit: BlockCommitReport? { stores.compactMap(\.lastCommit).last }

    /// Blocks per slot file, and logical blocks per slot.
    package var size: (blocks: Int, logical: Int) { (Int(container.state.blockCount), Int(container.state.logicalCount)) }

    /// A whole rewrite of slot `index` with its own stream (what inner format 1 does at
    /// every commit), for comparison.
    package func rewriteWhole(slot index: Int) throws {
        let slot = container.slots[index]
        try container.commit(replacing: [slot: try container.readStream(slot)])
    }
}
