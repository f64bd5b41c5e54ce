import Foundation
import ObscuraCrypto
import ObscuraImaging
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// `obscura watch` as a process, with real writers (docs/PHONE.md §W9.2): rsync, a
/// Syncthing-style temporary renamed into place, a writer that pauses longer than the
/// settle window, a kill and a restart, 1,000 files. The watcher runs as `nobody` on a
/// tree `nobody` owns (`setpriv`): root never meets a lease refusal, and the watcher must
/// work as the user a service unit runs it as.
@Suite(.serialized) struct WatchCLITests {
    /// A vault directory with one vault (password "pw"), its code, a folder to watch, the
    /// whole tree owned by nobody.
    final class Setup {
        let cli: CLIRunner
        let code: String
        var source: String { cli.root + "/Camera" }
        var inbox: DropInbox { DropInbox(vaultPath: cli.vault) }

        init() throws {
            cli = try CLIRunner()
            try cli.initializeQuickly(password: "pw")
            code = try cli.run(["drop", "code", "--password-stdin"], stdin: "pw\n").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            cli.environment["XDG_STATE_HOME"] = cli.root + "/state"
            try Self.giveToNobody(cli.root)
            // The key files stay root's: the commands run as root refuse a key file that
            // belongs to another user (the watcher needs neither).
            _ = try ExternalTool.run("/bin/chown", ["root:root", cli.outerKeyFile, cli.decoySecretFile])
        }

        static let nobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

        static func giveToNobody(_ path: String) throws {
            _ = try ExternalTool.run("/bin/chown", ["-R", "nobody:nogroup", path])
        }

        /// Starts the watcher as nobody.
        func watch(_ arguments: [String] = []) throws -> CLIRunner.Running {
            cli.launcher = Self.nobody
            defer { cli.launcher = [] }
            return try cli.start(["watch", "--code", code, "--settle", "1", "--poll", "0.2"] + arguments + [source])
        }

        /// Runs `command` as nobody (a writer in the watched folder).
        func asNobody(_ command: String) throws {
            _ = try ExternalTool.run(Self.nobody[0], Array(Self.nobody.dropFirst()) + ["/bin/sh", "-c", command])
        }

        /// Stops the watcher with SIGTERM and returns what it said; one that has not
        /// exited after 20 s is killed (and the test then fails on its exit code).
        func stop(_ watcher: CLIRunner.Running) -> CLIRunner.Output {
            watcher.process.terminate()
            let deadline = Date().addingTimeInterval(20)
            while watcher.process.isRunning && Date() < deadline { usleep(50_000) }
            if watcher.process.isRunning { kill(watcher.process.processIdentifier, SIGKILL) }
            return watcher.finish()
        }

        /// Waits until the inbox holds `count` blobs, at most `timeout` seconds.
        func waitForBlobs(_ count: Int, timeout: TimeInterval = 60) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if inbox.blobNames().count >= count { return true }
                usleep(100_000)
            }
            return inbox.blobNames().count >= count
        }

        /// The vault's items after an unlock took the inbox in: name and capture date.
        func items() throws -> [(name: String, takenAt: String?, id: String)] {
            let listed = try cli.run(["ls", "--json", "--password-stdin"], stdin: "pw\n")
            #expect(listed.code == 0, "\(listed.stderr)")
            let entries = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            return entries.map { ($0["name"] as? String ?? "", $0["taken_at"] as? String, $0["id"] as? String ?? "") }
                .sorted { $0.name < $1.name }
        }
    }

    static func photo(_ seed: Int) throws -> [UInt8] {
        try ExternalTool.run("/usr/bin/convert", ["-seed", "\(seed)", "-size", "64x48", "plasma:fractal", "jpg:-"])
    }

    /// rsync's temporaries (`.NAME.XXXXXX`, renamed at the end) and Syncthing's
    /// (`.syncthing.NAME.tmp`, written in pieces, then renamed) are each sealed once,
    /// under their final names; SIGTERM ends the watcher with 0.
    @Test func rsyncAndASyncthingStyleRenameAreEachSealedOnce() throws {
        let setup = try Setup()
        let staging = setup.cli.root + "/phone"
        try FileManager.default.createDirectory(atPath: staging + "/DCIM", withIntermediateDirectories: true)
        for index in 0..<5 { try Data(try Self.photo(index)).write(to: URL(fileURLWithPath: staging + "/DCIM/IMG_\(index).jpg")) }
        try Setup.giveToNobody(staging)
        let watcher = try setup.watch()
        usleep(500_000)
        try setup.asNobody("rsync -a '\(staging)/DCIM/' '\(setup.source)/DCIM/'")
        // Syncthing: a dot-named temporary written in pieces with pauses, then renamed.
        let photo = staging + "/IMG_9.jpg"
        try Data(try Self.photo(99)).write(to: URL(fileURLWithPath: photo))
        try Setup.giveToNobody(photo)
        let temporary = setup.source + "/.syncthing.IMG_9.jpg.tmp"
        try setup.asNobody(
            "head -c 700 '\(photo)' > '\(temporary)'; sleep 2; tail -c +701 '\(photo)' >> '\(temporary)'; sleep 2; "
                + "mv '\(temporary)' '\(setup.source)/IMG_9.jpg'")
        #expect(setup.waitForBlobs(6))
        usleep(1_500_000)
        let output = setup.stop(watcher)
        #expect(output.code == 0, "\(output.stderr)")
        #expect(output.stderr.contains("stopped: sealed 6"), "\(output.stderr)")
        #expect(!output.stderr.contains("IMG_"), "no taken file is named: \(output.stderr)")
        #expect(try setup.items().map(\.name) == ["IMG_0.jpg", "IMG_1.jpg", "IMG_2.jpg", "IMG_3.jpg", "IMG_4.jpg", "IMG_9.jpg"])
    }

    /// A writer that holds its file open and pauses longer than the settle window (a
    /// phone on weak Wi-Fi through an SFTP server): the watcher, as the file's owner, cannot
    /// take a read lease while the file is open for writing, so it seals the file once,
    /// whole, after the writer closed it. A camera RAW has no structure to check: the lease
    /// is all that tells.
    @Test func aFileStillBeingWrittenIsNotSealedHalf() throws {
        let setup = try Setup()
        let watcher = try setup.watch()
        usleep(500_000)
        let target = setup.source + "/IMG_0001.CR3"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: Setup.nobody[0])
        writer.arguments = Array(Setup.nobody.dropFirst()) + ["/usr/bin/python3", "-c", """
            import os, sys, time
            fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, b"R" * 300000)
            time.sleep(4)
            os.write(fd, b"W" * 300000)
            os.close(fd)
            """, target]
        try writer.run()
        usleep(3_500_000)
        #expect(setup.inbox.blobNames().isEmpty, "a file held open by its writer is not sealed")
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(setup.waitForBlobs(1, timeout: 20))
        usleep(1_500_000)
        let output = setup.stop(watcher)
        #expect(output.code == 0 && output.stderr.contains("stopped: sealed 1 "), "\(output.stderr)")
        #expect(!output.stderr.contains("no read lease"), "nobody owns the file: the lease is available")
        let item = try #require(try setup.items().first)
        #expect(item.name == "IMG_0001.CR3")
        let got = try setup.cli.run(["get", item.id, "-o", setup.cli.root + "/back", "--password-stdin"], stdin: "pw\n")
        #expect(got.code == 0, "\(got.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.cli.root + "/back")) == Data(repeating: 0x52, count: 300_000) + Data(repeating: 0x57, count: 300_000))
    }

    /// Files arriving while the watcher is killed (SIGKILL: no journal sync, perhaps a
    /// temporary left) and started again: every file is one item of the vault, none lost,
    /// none twice (a blob sealed again after a kill between its rename and its record is
    /// taken as a duplicate: PHONE.md §W0.1 A1).
    @Test func aKilledAndRestartedWatcherNeitherLosesNorDuplicates() throws {
        let setup = try Setup()
        let staging = setup.cli.root + "/phone"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let count = 40
        for index in 0..<count { try Data(try Self.photo(100 + index)).write(to: URL(fileURLWithPath: staging + "/P\(index).jpg")) }
        try Setup.giveToNobody(staging)
        let first = try setup.watch()
        usleep(500_000)
        let copier = Process()
        copier.executableURL = URL(fileURLWithPath: Setup.nobody[0])
        copier.arguments = Array(Setup.nobody.dropFirst()) + ["/bin/sh", "-c",
            "for f in '\(staging)'/*.jpg; do cp \"$f\" '\(setup.source)/'; sleep 0.05; done"]
        try copier.run()
        #expect(setup.waitForBlobs(8))
        kill(first.process.processIdentifier, SIGKILL)
        let killed = first.finish()
        #expect(killed.code != 0)
        let second = try setup.watch()
        copier.waitUntilExit()
        #expect(setup.waitForBlobs(count))
        usleep(2_000_000)
        let output = setup.stop(second)
        #expect(output.code == 0, "\(output.stderr)")
        let names = try setup.items().map(\.name)
        #expect(names.count == count && Set(names) == Set((0..<count).map { "P\($0).jpg" }), "\(names)")
    }

    /// What a restart cannot mend exits 64 (a unit stops restarting); a second watcher of
    /// a folder exits 75; a missing folder exits 1.
    @Test func refusalsHaveTheirExitCodes() throws {
        let setup = try Setup()
        let codeFile = setup.cli.root + "/watch.code"
        try Data((setup.code + "\n").utf8).write(to: URL(fileURLWithPath: codeFile))
        chmod(codeFile, 0o644)
        func watch(_ arguments: [String]) throws -> CLIRunner.Output {
            try setup.cli.run(["watch", "--settle", "1"] + arguments)
        }
        let readable = try watch(["--code-file", codeFile, setup.source])
        #expect(readable.code == 64 && readable.stderr.contains("readable by others"), "\(readable.stderr)")
        #expect(!readable.stderr.contains(setup.code), "the code is never written out")
        let wrong = try watch(["--code", "DROPS-0000", setup.source])
        #expect(wrong.code == 64, "\(wrong.stderr)")
        let inside = try watch(["--code", setup.code, setup.cli.vault + "/data"])
        #expect(inside.code == 64 && inside.stderr.contains("inside the vault directory"), "\(inside.stderr)")
        let holding = try watch(["--code", setup.code, setup.cli.root])
        #expect(holding.code == 64 && holding.stderr.contains("holds the vault directory"), "\(holding.stderr)")
        let missing = try watch(["--code", setup.code, setup.cli.root + "/nowhere"])
        #expect(missing.code == 1, "\(missing.stderr)")
        chmod(codeFile, 0o600)
        let first = try setup.watch()
        usleep(800_000)
        let second = try watch(["--code-file", codeFile, setup.source])
        #expect(second.code == 75 && second.stderr.contains("another watcher has"), "\(second.stderr)")
        #expect(setup.stop(first).code == 0)
    }

    /// 1,000 photos arrive in the watched folder and are taken in at the next unlock, each
    /// once, with their capture dates (issue 39, "Done when").
    @Test func aThousandFilesArriveAndAreTakenInOnceWithTheirDates() throws {
        let setup = try Setup()
        let base = try TestImages.image("jpg", width: 32, height: 24)
        let staging = setup.cli.root + "/phone"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let count = 1_000
        for index in 0..<count {
            // A date per file makes each file's bytes its own.
            let date = String(format: "2026:%02d:%02d %02d:%02d:%02d", index / 200 + 1, index % 28 + 1, index % 24, index % 60, index / 60)
            let jpeg = Array(base[0..<2]) + TestImages.exifSegment(date: date, orientation: 1) + Array(base[2...])
            try Data(jpeg).write(to: URL(fileURLWithPath: staging + String(format: "/IMG_%04d.jpg", index)))
        }
        try Setup.giveToNobody(staging)
        let started = Date()
        let watcher = try setup.watch()
        usleep(500_000)
        try setup.asNobody("cp '\(staging)'/*.jpg '\(setup.source)/'")
        #expect(setup.waitForBlobs(count, timeout: 300))
        let sealing = Date().timeIntervalSince(started)
        usleep(1_000_000)
        let output = setup.stop(watcher)
        #expect(output.code == 0 && output.stderr.contains("stopped: sealed \(count) "), "\(output.stderr)")
        let unlocked = Date()
        let items = try setup.items()
        let intake = Date().timeIntervalSince(unlocked)
        print("watch: \(count) photos sealed in \(String(format: "%.1f", sealing)) s, taken in by one unlock in \(String(format: "%.1f", intake)) s")
        #expect(items.count == count)
        #expect(Set(items.map(\.name)).count == count)
        #expect(items.allSatisfy { $0.takenAt?.hasPrefix("2026-") == true }, "\(items.prefix(3))")
        #expect(setup.inbox.blobNames().isEmpty)
    }

    /// `--remove-after` with real processes: a photo stays in the folder while its blob
    /// waits in the inbox, and goes once an unlock took it in; in a Syncthing folder that
    /// is not Receive Only the watcher refuses to start (64).
    @Test func removeAfterWaitsForTheUnlock() throws {
        let setup = try Setup()
        let photo = setup.cli.root + "/IMG_7.jpg"
        try Data(try Self.photo(7)).write(to: URL(fileURLWithPath: photo))
        try Setup.giveToNobody(photo)
        let watcher = try setup.watch(["--remove-after"])
        usleep(500_000)
        try setup.asNobody("cp '\(photo)' '\(setup.source)/'")
        #expect(setup.waitForBlobs(1))
        usleep(1_500_000)
        #expect(FileManager.default.fileExists(atPath: setup.source + "/IMG_7.jpg"), "durable in the inbox is not taken in")
        #expect(try setup.items().map(\.name) == ["IMG_7.jpg"])
        let deadline = Date().addingTimeInterval(20)
        while FileManager.default.fileExists(atPath: setup.source + "/IMG_7.jpg") && Date() < deadline { usleep(100_000) }
        #expect(!FileManager.default.fileExists(atPath: setup.source + "/IMG_7.jpg"))
        let output = setup.stop(watcher)
        #expect(output.code == 0 && output.stderr.contains("removed 1"), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.source).isEmpty)

        try Data().write(to: URL(fileURLWithPath: setup.source + "/.stfolder"))
        let refused = try setup.cli.run(["watch", "--code", setup.code, "--remove-after", setup.source])
        #expect(refused.code == 64 && refused.stderr.contains("Receive Only"), "\(refused.stderr)")
    }

    /// With the kernel's events (no --poll) and the default settle window of 10 s, a file
    /// renamed into place (a sync tool's last step) is sealed after about a second, and a
    /// file written in place waits its 10 s (docs/PHONE.md §W2.2-§W2.3).
    @Test func eventsSealARenamedFileAtOnce() throws {
        let setup = try Setup()
        let staging = setup.source + "/.incoming.tmp"
        try Data(try Self.photo(11)).write(to: URL(fileURLWithPath: staging))
        try Setup.giveToNobody(staging)
        setup.cli.launcher = Setup.nobody
        let watcher = try setup.cli.start(["watch", "--code", setup.code, setup.source])
        setup.cli.launcher = []
        usleep(800_000)
        let started = Date()
        #expect(rename(staging, setup.source + "/IMG_11.jpg") == 0)
        #expect(setup.waitForBlobs(1, timeout: 8))
        let took = Date().timeIntervalSince(started)
        #expect(took < 5, "sealed \(took) s after its rename")
        try Data(try Self.photo(12)).write(to: URL(fileURLWithPath: setup.source + "/IMG_12.jpg"))
        usleep(4_000_000)
        #expect(setup.inbox.blobNames().count == 1, "written in place: not quiet for 10 s yet")
        #expect(setup.waitForBlobs(2, timeout: 20))
        let output = setup.stop(watcher)
        #expect(output.code == 0 && output.stderr.contains("changes as they happen"), "\(output.stderr)")
    }
}
