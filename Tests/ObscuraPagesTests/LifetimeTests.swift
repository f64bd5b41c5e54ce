import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

/// What a closed catalog lets go of: its pager file, which holds the MEK's copy and the
/// catalog keys, must not outlive the catalog because something else keeps the queue.
@Suite struct LifetimeTests {
    /// GRDB keeps a queue's configuration, and with it the `prepareDatabase` closure, for
    /// as long as anything holds the queue (or, after close, until its dispatch queue is
    /// torn down). The closure captured the file, so a held queue kept the keys alive;
    /// scripts/fuzz's vfs target found it as a file alive after close.
    @Test func aHeldQueueDoesNotKeepTheFile() throws {
        weak var file: PagedFile?
        var queue: DatabaseQueue?
        do {
            let (store, created) = try Fixture.create()
            try created.close()
            let catalog = try Fixture.reopen(store)
            file = catalog.backend
            queue = catalog.queue
            #expect(try catalog.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 0)
            try catalog.close()
        }
        #expect(queue != nil)
        #expect(file == nil)
    }

    @Test func aNewCatalogsHeldQueueDoesNotKeepTheFile() throws {
        weak var file: PagedFile?
        var queue: DatabaseQueue?
        do {
            let (_, catalog) = try Fixture.create()
            file = catalog.backend
            queue = catalog.queue
            try catalog.close()
        }
        #expect(queue != nil)
        #expect(file == nil)
    }
}
