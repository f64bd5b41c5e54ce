import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// `obscura watch` in process (docs/PHONE.md §W2): what is sealed, when, and once. Scans
/// run at given monotonic times, so the settle window is tried without sleeping. The
/// watcher as a process, with real writers (rsync, a Syncthing-style rename, a kill and
/// a restart, an unprivileged user) is `WatchCLITests`.
@Suite struct WatcherTests {
    /// A vault directory with one vault, its drop code, and a folder to watch.
    final class Setup {
        let root: TestRoot
        let vault: Vault
        let code: DropCode
        let source: String
        let inbox: DropInbox
        var lines: [String] = []
        let lock = NSLock()

        init() throws {
            root = try TestRoot()
            vault = try root.initialized().createVault(password: pw("watched"), iterations: testIterations)
            code = try vault.dropCode()
            source = root.path + "/Camera"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            inbox = DropInbox(vaultPath: root.vaultPath)
        }

        deinit { vault.lock() }

        var state: String { root.path + "/state" }

        func options(existing: Bool = false, sources: [String]? = nil) -> Watcher.Options {
            var options = Watcher.Options(vault: root.vaultPath, code: code, sources: sources ?? [source], state: state)
            options.existing = existing
            return options
        }

        func watcher(_ options: Watcher.Options? = nil) throws -> Watcher {
            try Watcher(options: options ?? self.options()) { line in self.lock.withLock { self.lines.append(line) } }
        }

        func write(_ name: String, _ bytes: [UInt8]) throws {
            let path = source + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }

        /// The names of the items the vault took from its inbox.
        func taken() throws -> [String] {
            _ = try vault.takeDrops()
            return try vault.items().map(\.record.name).sorted()
        }
    }

    static func photo(_ seed: Int) throws -> [UInt8] {
        try ExternalTool.run("/usr/bin/convert", ["-seed", "\(seed)", "-size", "48x32", "plasma:fractal", "jpg:-"])
    }

    @Test func aFirstStartLeavesWhatIsThereAndSealsWhatComesOnceQuiet() throws {
        let setup = try Setup()
        try setup.write("old.jpg", try Self.photo(1))
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        #expect(setup.inbox.blobNames().isEmpty, "a baseline, not a seal")
        try setup.write("new.jpg", try Self.photo(2))
        try watcher.pass(now: 1)
        try watcher.pass(now: 10.9)
        #expect(setup.inbox.blobNames().isEmpty, "not quiet for 10 s yet")
        try watcher.pass(now: 11)
        #expect(setup.inbox.blobNames().count == 1)
        #expect(watcher.tally.sealed == 1 && watcher.tally.settling == 0)
        #expect(try setup.taken() == ["new.jpg"])
        #expect(!setup.lines.joined().contains("new.jpg"), "a taken file is not named without --verbose: \(setup.lines)")
    }

    @Test func withExistingWhatIsThereIsSealedToo() throws {
        let setup = try Setup()
        try setup.write("old.jpg", try Self.photo(1))
        try setup.write("2026/11/older.jpg", try Self.photo(3))
        let watcher = try setup.watcher(setup.options(existing: true))
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        #expect(try setup.taken() == ["old.jpg", "older.jpg"])
    }

    /// A restart seals what came while the watcher was stopped, and nothing it sealed; a
    /// copy of a file it sealed (a new name, the same bytes) is not sealed again.
    @Test func aRestartNeitherLosesNorRepeats() throws {
        let setup = try Setup()
        try setup.write("a.jpg", try Self.photo(1))
        var watcher: Watcher? = try setup.watcher(setup.options(existing: true))
        try watcher!.pass(now: 0)
        try watcher!.pass(now: 10)
        #expect(setup.inbox.blobNames().count == 1)
        watcher = nil
        try setup.write("b.jpg", try Self.photo(2))
        try FileManager.default.copyItem(atPath: setup.source + "/a.jpg", toPath: setup.source + "/a copy.jpg")
        watcher = try setup.watcher()
        try watcher!.pass(now: 100)
        try watcher!.pass(now: 110)
        #expect(setup.inbox.blobNames().count == 2)
        #expect(watcher!.tally.sealed == 1 && watcher!.tally.known == 1)
        #expect(try setup.taken() == ["a.jpg", "b.jpg"])
    }

    /// Temporaries, hidden files and folders, links, FIFOs and empty files are never
    /// sealed; a sync tool's temporary renamed to its final name is.
    @Test func temporariesHiddenFilesAndLinksAreNotSealed() throws {
        let setup = try Setup()
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        let photo = try Self.photo(4)
        try setup.write(".syncthing.IMG_1.jpg.tmp", photo)
        try setup.write("IMG_2.jpg.part", try Self.photo(5))
        try setup.write("IMG_3.jpg.crdownload", try Self.photo(6))
        try setup.write(".stversions/IMG_0.jpg", try Self.photo(7))
        try setup.write("empty.jpg", [])
        let outside = setup.root.path + "/outside.jpg"
        try Data(try Self.photo(8)).write(to: URL(fileURLWithPath: outside))
        #expect(symlink(outside, setup.source + "/link.jpg") == 0)
        #expect(mkfifo(setup.source + "/fifo.jpg", 0o600) == 0)
        try watcher.pass(now: 1)
        try watcher.pass(now: 20)
        #expect(setup.inbox.blobNames().isEmpty)
        #expect(rename(setup.source + "/.syncthing.IMG_1.jpg.tmp", setup.source + "/IMG_1.jpg") == 0)
        try watcher.pass(now: 21)
        try watcher.pass(now: 40)
        #expect(try setup.taken() == ["IMG_1.jpg"])
    }

    /// A folder swapped for a link to where it went, between the scan and the open: the
    /// file is the same inode, but the walk refuses the link (`O_NOFOLLOW` at every step).
    @Test func aFolderSwappedForALinkIsNotFollowed() throws {
        let setup = try Setup()
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        try setup.write("sub/photo.jpg", try Self.photo(9))
        try watcher.pass(now: 1)
        let moved = setup.root.path + "/moved"
        #expect(rename(setup.source + "/sub", moved) == 0)
        #expect(symlink(moved, setup.source + "/sub") == 0)
        try watcher.pass(now: 20)
        #expect(setup.inbox.blobNames().isEmpty)
    }

    /// A file some process holds open for writing is not sealed, however long it is quiet
    /// (a read lease cannot be had); once closed, it is.
    @Test func aFileHeldOpenForWritingWaits() throws {
        let setup = try Setup()
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        let path = setup.source + "/clip.raw"
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(fd >= 0)
        let half = [UInt8](repeating: 0x5A, count: 300_000)
        #expect(write(fd, half, half.count) == half.count)
        try watcher.pass(now: 1)
        try watcher.pass(now: 20)
        try watcher.pass(now: 40)
        #expect(setup.inbox.blobNames().isEmpty, "held open by a writer")
        #expect(write(fd, half, half.count) == half.count)
        close(fd)
        try watcher.pass(now: 41)
        try watcher.pass(now: 60)
        #expect(setup.inbox.blobNames().count == 1)
        _ = try setup.vault.takeDrops()
        let item = try #require(try setup.vault.items().first?.record)
        #expect(try setup.vault.read(item, range: 0..<600_000) == half + half, "sealed whole")
    }

    /// A JPEG cut short is not sealed while it stays cut; whole, it is. One that stays cut
    /// for the give-up time is sealed as it is, and named in the log.
    @Test func aJPEGCutShortWaitsUntilWholeOrGivenUp() throws {
        let setup = try Setup()
        var options = setup.options()
        options.giveUpAfter = 600
        let watcher = try setup.watcher(options)
        try watcher.pass(now: 0)
        let photo = try TestImages.detailedJPEG(width: 320, height: 240)
        try setup.write("slow.jpg", Array(photo.prefix(photo.count / 2)))
        try setup.write("stalled.jpg", Array(try Self.photo(10).dropLast(30)))
        try watcher.pass(now: 1)
        try watcher.pass(now: 20)
        #expect(setup.inbox.blobNames().isEmpty)
        try setup.write("slow.jpg", photo)
        try watcher.pass(now: 30)
        try watcher.pass(now: 40)
        #expect(setup.inbox.blobNames().count == 1, "the whole JPEG, not the stalled one")
        try watcher.pass(now: 601)
        #expect(setup.inbox.blobNames().count == 2)
        #expect(setup.lines.contains { $0.hasPrefix("stalled.jpg: unchanged for") && $0.contains("not whole") }, "\(setup.lines)")
        // The vault takes the stalled JPEG as a photo where libvips reads what there is,
        // else keeps it as a file (DropTests.aRefusedFileIsKeptAsAFile): either way it holds it.
        let intake = try setup.vault.takeDrops()
        #expect(intake.taken == 2 && intake.failed.isEmpty, "\(intake)")
        let items = try setup.vault.items().map(\.record)
        #expect(items.map(\.name).sorted() == ["slow.jpg", "stalled.jpg"])
    }

    /// The watcher leaves at most `--inbox-limit` blobs, says so once, and goes on when a
    /// vault takes its drops.
    @Test func theInboxLimitIsKept() throws {
        let setup = try Setup()
        var options = setup.options(existing: true)
        options.inboxLimit = 2
        for index in 0..<3 { try setup.write("p\(index).jpg", try Self.photo(20 + index)) }
        let watcher = try setup.watcher(options)
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        try watcher.pass(now: 11)
        #expect(setup.inbox.blobNames().count == 2)
        #expect(setup.lines.filter { $0.hasPrefix("the inbox is full") }.count == 1)
        #expect(watcher.tally.settling == 1)
        #expect(try setup.taken().count == 2)
        try watcher.pass(now: 12)
        #expect(try setup.taken().count == 3)
    }

    /// One watcher per folder (a unit and a manual run): the second is refused; another
    /// folder can be watched beside it.
    @Test func aSecondWatcherOfAFolderIsRefused() throws {
        let setup = try Setup()
        let first = try setup.watcher()
        #expect(throws: WatchError.sourceInUse(URL(fileURLWithPath: setup.source).resolvingSymlinksInPath().path)) {
            _ = try setup.watcher()
        }
        let other = setup.root.path + "/Screenshots"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let second = try setup.watcher(setup.options(sources: [other]))
        try first.pass(now: 0)
        try second.pass(now: 0)
    }

    /// A name that is not UTF-8 is walked and keyed by its bytes, and sealed under a
    /// name the vault can show.
    @Test func aNameThatIsNotUTF8IsSealed() throws {
        let setup = try Setup()
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let path = Array(setup.source.utf8) + [UInt8(ascii: "/")] + name
        let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o600) }
        let photo = try Self.photo(30)
        #expect(fd >= 0 && write(fd, photo, photo.count) == photo.count)
        close(fd)
        try watcher.pass(now: 1)
        try watcher.pass(now: 20)
        #expect(try setup.taken() == ["caf\u{FFFD}.jpg"])
    }

    /// A first start that stops before it is done (here: its second folder is another
    /// watcher's) leaves the first folder's baseline whole, or no journal at all: the next
    /// start never seals what the first was to leave (review W-S1).
    @Test func aFirstStartThatStopsLeavesItsBaselineWhole() throws {
        let setup = try Setup()
        for index in 0..<5 { try setup.write("old\(index).jpg", try Self.photo(60 + index)) }
        let busy = setup.root.path + "/Busy"
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        let holder = try setup.watcher(setup.options(sources: [busy]))
        #expect(throws: WatchError.self) { _ = try setup.watcher(setup.options(sources: [setup.source, busy])) }
        _ = holder
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        try watcher.pass(now: 20)
        #expect(setup.inbox.blobNames().isEmpty, "the old files were left, as the first start said")
        #expect(watcher.tally.sealed == 0)
    }

    /// A file that shrank between the scan and its reading is not read past its end: it
    /// waits (review W-S2).
    @Test func aFileThatShrankWaits() throws {
        let setup = try Setup()
        let watcher = try setup.watcher()
        try watcher.pass(now: 0)
        let photo = try Self.photo(70)
        try setup.write("shrinking.jpg", photo)
        try watcher.pass(now: 1)
        #expect(truncate(setup.source + "/shrinking.jpg", 4) == 0)
        // The pass measures anew, so shrink it again between that measure and the read
        // by giving the structure check a size the file no longer has.
        #expect(try WatchStructure.check(size: UInt64(photo.count)) { _ in [0xFF, 0xD8, 0xFF, 0xE0] } == .incomplete)
        try watcher.pass(now: 20)
        #expect(setup.inbox.blobNames().isEmpty, "four bytes, not quiet yet")
    }

    /// A folder named twice is watched once, not refused as another watcher's.
    @Test func aFolderNamedTwiceIsWatchedOnce() throws {
        let setup = try Setup()
        let watcher = try setup.watcher(setup.options(existing: true, sources: [setup.source, setup.source + "/."]))
        try setup.write("a.jpg", try Self.photo(71))
        try watcher.pass(now: 0)
        try watcher.pass(now: 10)
        #expect(setup.inbox.blobNames().count == 1)
    }

    /// While the inbox is full, files that wait for room bring a scan every 10 s, not a
    /// busy loop of scans (a full inbox can last days).
    @Test(arguments: [false, true])
    func aFullInboxDoesNotSpinTheWatcher(events: Bool) throws {
        let setup = try Setup()
        var options = setup.options(existing: true)
        options.inboxLimit = 1
        options.settle = 0
        options.usesEvents = events
        options.interval = 60
        for index in 0..<3 { try setup.write("p\(index).jpg", try Self.photo(80 + index)) }
        let watcher = try setup.watcher(options)
        let end = Watcher.monotonic() + 3
        try watcher.run(stop: { Watcher.monotonic() > end })
        #expect(setup.inbox.blobNames().count == 1)
        #expect(watcher.tally.settling == 2)
        #expect(watcher.tally.scans <= 4, "\(watcher.tally.scans) scans in 3 s")
    }
}
