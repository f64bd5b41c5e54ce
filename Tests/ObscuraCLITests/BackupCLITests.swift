import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraTestSupport
import Testing

/// Issue 18, "Done when": `obscura backup` driving the real restic against real
/// repositories started by the tests on loopback (a local folder, `rclone serve restic`,
/// SFTP to a throwaway sshd), and its faults: the server killed mid-backup, a full disk
/// at the repository, a wrong backup password, a corrupted pack.
///
/// Every runner gives restic a cache in its own root and keeps the backup password in a
/// file there (`OBSCURA_BACKUP_PASSWORD_FILE`), so that no keyring is needed, except the
/// keyring test, which starts its own.
@Suite struct BackupCLITests {
    // MARK: Helpers

    /// A runner for backups: restic's cache and the backup password file in its root.
    static func runner() throws -> CLIRunner {
        let cli = try CLIRunner()
        cli.environment = ["XDG_CACHE_HOME": cli.root + "/cache", "OBSCURA_BACKUP_PASSWORD_FILE": passwordFile(cli)]
        return cli
    }

    static func passwordFile(_ cli: CLIRunner) -> String { cli.root + "/backup-password" }

    /// Runs a command that must succeed, and fails the test with its error output if not.
    @discardableResult
    static func ok(
        _ cli: CLIRunner, _ args: [String], stdin: String = "", vault: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIRunner.Output {
        let out = try cli.run((vault.map { ["--vault", $0] } ?? []) + args, stdin: stdin, vaultOption: vault == nil)
        try #require(out.code == 0, "obscura \(args.joined(separator: " ")) exited \(out.code): \(out.stderr)", sourceLocation: sourceLocation)
        return out
    }

    /// SHA-256 of every file under `data/` and `media/` of `directory`, by relative path.
    static func tree(_ directory: String) throws -> [String: [UInt8]] {
        var files = [String: [UInt8]]()
        for sub in ["data", "media"] {
            let base = directory + "/" + sub
            for name in try FileManager.default.subpathsOfDirectory(atPath: base).sorted() {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                files[sub + "/" + name] = SHA256Digest.hash(try Data(contentsOf: URL(fileURLWithPath: base + "/" + name)))
            }
        }
        return files
    }

    /// Every path under `directory` (files and folders), to show that nothing was made
    /// or removed anywhere in it.
    static func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// The names of the items `ls --json` lists in the vault at `vault` (the runner's by default).
    static func names(_ cli: CLIRunner, vault: String? = nil, password: String = "pw") throws -> [String: String] {
        let out = try ok(cli, ["ls", "--json", "--password-stdin"], stdin: password + "\n", vault: vault)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]])
        var byName = [String: String]()
        for row in rows { byName[row["name"] as? String ?? "?"] = row["id"] as? String }
        return byName
    }

    /// A small photo named `name`, different for each `seed`, written under the runner's root.
    static func photo(_ cli: CLIRunner, _ name: String, seed: Int) throws -> String {
        let format = (name as NSString).pathExtension
        let path = cli.root + "/photos/" + name
        try FileManager.default.createDirectory(atPath: cli.root + "/photos", withIntermediateDirectories: true)
        try Data(TestImages.image(format, width: 40 + seed * 8, height: 30 + seed * 4)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A file of `megabytes` MB of random bytes (incompressible, as restic sees a vault).
    static func randomFile(_ cli: CLIRunner, _ name: String, megabytes: Int) throws -> String {
        let path = cli.root + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        for _ in 0..<megabytes { try handle.write(contentsOf: SystemRandom().bytes(1_000_000)) }
        return path
    }

    /// The snapshots `backup list --json` shows, oldest first.
    static func snapshots(_ cli: CLIRunner) throws -> [[String: Any]] {
        let out = try ok(cli, ["backup", "list", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]])
    }

    /// The snapshot id `backup run` reported.
    static func snapshotID(_ run: CLIRunner.Output) throws -> String {
        let words = run.stdout.split(separator: " ")
        let index = try #require(words.firstIndex(of: "Snapshot"), "no snapshot in: \(run.stdout)")
        return String(words[index + 1])
    }

    /// The generated password `backup init` showed once (`XXXXX-XXXXX-XXXXX-XXXXX`).
    static func shownPassword(_ initOutput: CLIRunner.Output) throws -> String {
        let line = initOutput.stdout.split(separator: "\n").first { line in
            line.hasPrefix("  ") && line.dropFirst(2).split(separator: "-").map(\.count) == [5, 5, 5, 5]
        }
        return String(try #require(line, "no password shown in: \(initOutput.stdout)").dropFirst(2))
    }

    /// The pack files of a local repository.
    static func packs(_ repository: String) -> Set<String> {
        Set(listing(repository + "/data").filter { $0.contains("/") })
    }

    /// The vault directory's canonical path, as restic records it.
    static func canonical(_ path: String) -> String { BackupConfigurationStore.canonical(path) }

    // MARK: Three backends

    /// Init, three backups around imports and deletes, list, check --read-data, restore
    /// of the latest and of the first snapshot, byte-identical files, and the restored
    /// vaults open and verify.
    ///
    /// The vault directory is made by the library with 1,000 PBKDF2 rounds (the binary
    /// uses the count each header holds): with the CLI's 600,000, `init` and `create`
    /// cost 10 to 25 s on two busy cores and every later unlock 2 to 5 s, which would
    /// triple these tests' time for nothing a backup sees.
    func roundTrip(_ cli: CLIRunner, repository: String, options: [String] = [], textListing: Bool = false) throws {
        try cli.initializeQuickly(password: "pw")
        let a = try Self.photo(cli, "a.jpg", seed: 1), b = try Self.photo(cli, "b.png", seed: 2)
        let c = try Self.photo(cli, "c.jpg", seed: 3), d = try Self.photo(cli, "d.webp", seed: 4)
        try Self.ok(cli, ["add", "--password-stdin", a, b], stdin: "pw\n")

        let setUp = try Self.ok(cli, ["backup", "init", repository] + options.flatMap { ["-o", $0] })
        #expect(setUp.stdout.contains("Created the restic repository"), "\(setUp.stdout)")
        #expect(FileManager.default.fileExists(atPath: Self.passwordFile(cli)))

        let first = try Self.snapshotID(Self.ok(cli, ["backup", "run"]))
        let firstTree = try Self.tree(cli.vault)
        try Self.ok(cli, ["add", "--password-stdin", c], stdin: "pw\n")
        let second = try Self.snapshotID(Self.ok(cli, ["backup", "run"]))
        let ids = try Self.names(cli)
        #expect(Set(ids.keys) == ["a.jpg", "b.png", "c.jpg"])
        try Self.ok(cli, ["rm", "--now", "--password-stdin", try #require(ids["a.jpg"])], stdin: "pw\n")
        try Self.ok(cli, ["add", "--password-stdin", d], stdin: "pw\n")
        let third = try Self.snapshotID(Self.ok(cli, ["backup", "run"]))
        let latestTree = try Self.tree(cli.vault)
        #expect(firstTree != latestTree)

        let listed = try Self.snapshots(cli)
        #expect(listed.map { $0["short_id"] as? String } == [first, second, third])
        #expect(listed.allSatisfy { ($0["paths"] as? [String]) == [Self.canonical(cli.vault)] && ($0["id"] as? String)?.count == 64 })
        if textListing {
            let text = try Self.ok(cli, ["backup", "list"])
            #expect(text.stdout.hasSuffix("3 snapshots.\n"), "\(text.stdout)")
            #expect([first, second, third].allSatisfy(text.stdout.contains), "\(text.stdout)")
        }

        let check = try Self.ok(cli, ["backup", "check", "--read-data"])
        #expect(check.stdout.contains("No errors"), "\(check.stdout)")

        // The latest, as the directory is now.
        let latest = cli.root + "/restored-latest"
        try Self.ok(cli, ["backup", "restore", "latest", "--to", latest])
        #expect(try Self.tree(latest) == latestTree)
        #expect(Self.listing(latest).filter { !$0.hasPrefix("data") && !$0.hasPrefix("media") }.isEmpty, "nothing beside data/ and media/")
        #expect(Set(try Self.names(cli, vault: latest).keys) == ["b.png", "c.jpg", "d.webp"])
        let verified = try Self.ok(cli, ["verify", "--password-stdin"], stdin: "pw\n", vault: latest)
        #expect(verified.stdout.contains("Verified 3 items; 0 problems."), "\(verified.stdout)")

        // The first, by its id, as the directory was right after the first run.
        let old = cli.root + "/restored-first"
        try Self.ok(cli, ["backup", "restore", first, "--to", old])
        #expect(try Self.tree(old) == firstTree)
        #expect(Set(try Self.names(cli, vault: old).keys) == ["a.jpg", "b.png"])

        // The live directory is untouched by all of it.
        #expect(try Self.tree(cli.vault) == latestTree)
    }

    @Test func localRepository() throws {
        let cli = try Self.runner()
        try roundTrip(cli, repository: cli.root + "/repository", textListing: true)
        let status = try Self.ok(cli, ["backup", "status"])
        #expect(status.stdout.contains("Repository:   \(cli.root)/repository\n"), "\(status.stdout)")
        #expect(status.stdout.contains("Password in:  \(Self.canonical(Self.passwordFile(cli)))\n"), "\(status.stdout)")
        #expect(status.stdout.contains("Last backup:  ") && status.stdout.contains(", snapshot "), "\(status.stdout)")
    }

    @Test func rcloneRestServer() throws {
        let cli = try Self.runner()
        let server = try RcloneRestServer(root: cli.root)
        defer { server.kill() }
        try roundTrip(cli, repository: server.repository)
        #expect(FileManager.default.fileExists(atPath: server.directory + "/config"), "the repository lives in the server's folder")
    }

    @Test func sftpToThrowawaySSHD() throws {
        let cli = try Self.runner()
        let sshd = try ThrowawaySSHD(parent: cli.root)
        defer { sshd.stop() }
        let folder = cli.root + "/sftp-repository"
        try roundTrip(cli, repository: sshd.repository(folder), options: [sshd.resticOption])
        #expect(FileManager.default.fileExists(atPath: folder + "/config"), "the repository lives on the server")
    }

    // MARK: Faults

    /// Waits up to `seconds` for `condition`.
    static func wait(_ what: String, seconds: Double = 30, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw Loopback.StartFailure(description: "timed out waiting for \(what)") }
            usleep(20_000)
        }
    }

    /// The REST server is killed while a backup uploads: the run stops within its
    /// --give-up-after, exits 1 saying the repository did not answer, and leaves the vault
    /// as it was; once the server is back, the next run succeeds, check passes, and the
    /// snapshot restores.
    @Test func serverKilledMidBackup() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        // 40 MB at rclone's 8 MiB/s: a backup of about 5 s.
        try Self.ok(cli, ["add", "--password-stdin", try Self.randomFile(cli, "big.bin", megabytes: 40), try Self.photo(cli, "a.jpg", seed: 1)], stdin: "pw\n")
        let server = try RcloneRestServer(root: cli.root, bandwidthLimit: "8M")
        defer { server.kill() }
        try Self.ok(cli, ["backup", "init", server.repository])
        let before = try Self.tree(cli.vault)
        let everything = Self.listing(cli.vault)

        let started = Date()
        let running = try cli.start(["backup", "run", "--give-up-after", "5s"])
        // restic's lock appears once the backup itself runs; then let it upload a while.
        try Self.wait("restic's lock in the repository") { !Self.listing(server.directory + "/locks").isEmpty || !running.process.isRunning }
        Thread.sleep(forTimeInterval: 1)
        #expect(running.process.isRunning, "the backup is still uploading when the server dies")
        server.kill()
        let failed = running.finish()
        let took = Date().timeIntervalSince(started)
        #expect(failed.code == 1, "\(failed.stdout) \(failed.stderr)")
        #expect(failed.stderr.contains("obscura: error: the backup repository \(server.repository) did not answer"), "\(failed.stderr)")
        #expect(failed.stderr.contains("the vault directory is untouched, and the next run resumes"), "\(failed.stderr)")
        #expect(took < 60, "gave up after \(took) s")
        #expect(try Self.tree(cli.vault) == before, "the vault is untouched")
        #expect(Self.listing(cli.vault) == everything, "nothing made or removed in the vault directory")
        let status = try Self.ok(cli, ["backup", "status"])
        #expect(status.stdout.contains("FAILED: the backup repository"), "\(status.stdout)")

        try server.restart()
        let resumed = try Self.ok(cli, ["backup", "run"])
        let snapshot = try Self.snapshotID(resumed)
        #expect(try Self.snapshots(cli).map { $0["short_id"] as? String } == [snapshot], "the interrupted run left no snapshot")
        #expect(try Self.ok(cli, ["backup", "status"]).stdout.contains(", snapshot \(snapshot), "))
        let check = try Self.ok(cli, ["backup", "check", "--read-data"])
        #expect(check.stdout.contains("No errors"), "\(check.stdout)")
        let restored = cli.root + "/restored"
        try Self.ok(cli, ["backup", "restore", "latest", "--to", restored])
        #expect(try Self.tree(restored) == before)
        #expect(Set(try Self.names(cli, vault: restored).keys) == ["big.bin", "a.jpg"])
    }

    /// The repository's disk fills up: the run exits 1 saying so, and the vault is untouched.
    @Test func fullDiskAtTheRepository() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["add", "--password-stdin", try Self.randomFile(cli, "big.bin", megabytes: 60)], stdin: "pw\n")
        let disk = try TmpfsMount(megabytes: 30, parent: cli.root)
        defer { disk.unmount() }
        try Self.ok(cli, ["backup", "init", disk.path + "/repository"])
        let before = try Self.tree(cli.vault)
        let everything = Self.listing(cli.vault)

        let full = try cli.run(["backup", "run"])
        #expect(full.code == 1, "\(full.stdout) \(full.stderr)")
        // restic 0.14 says "no space left on device", or crashes without a word (then
        // the engine finds the repository's file system full).
        #expect(full.stderr.hasPrefix("obscura: error: the backup repository has no space left ("), "\(full.stderr)")
        #expect(full.stderr.hasSuffix("); the vault directory is untouched, and the next run resumes\n"), "\(full.stderr)")
        #expect(try Self.tree(cli.vault) == before, "the vault is untouched")
        #expect(Self.listing(cli.vault) == everything)
        #expect(try Self.snapshots(cli).isEmpty, "no snapshot")
        #expect(try Self.ok(cli, ["backup", "status"]).stdout.contains("FAILED: the backup repository has no space left"))
    }

    /// A restore on a new machine with a wrong backup password is refused before anything
    /// is written; with the right one, typed as shown or in lower case, it gives a vault
    /// that opens with the outer key and the vault password.
    @Test func wrongBackupPasswordOnANewMachine() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["add", "--password-stdin", try Self.photo(cli, "a.jpg", seed: 1)], stdin: "pw\n")
        let repository = cli.root + "/repository"
        let shown = try Self.shownPassword(Self.ok(cli, ["backup", "init", repository]))
        try Self.ok(cli, ["backup", "run"])
        let before = try Self.tree(cli.vault)

        // The new machine: no set-up, only the outer key (and the repository).
        let machine = try Self.runner()
        try FileManager.default.copyItem(atPath: cli.outerKeyFile, toPath: machine.outerKeyFile)
        let parent = machine.root + "/restores"
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let target = parent + "/vault"
        for wrong in ["AAAAA-BBBBB-CCCCC-DDDDD", "not the password", String(shown.dropLast()) + (shown.hasSuffix("0") ? "1" : "0")] {
            let refused = try machine.run(["backup", "restore", "latest", "--repo", repository, "--to", target, "--password-stdin"],
                                          stdin: wrong + "\n")
            #expect(refused.code == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("obscura: error: wrong backup password: it does not open this repository"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target), "the target is not made")
            #expect(Self.listing(parent).isEmpty, "nothing beside it either")
        }
        let listRefused = try machine.run(["backup", "list", "--repo", repository, "--password-stdin"], stdin: "wrong\n")
        #expect(listRefused.code == 1 && listRefused.stderr.contains("wrong backup password"), "\(listRefused.stderr)")

        let restored = try machine.run(["backup", "restore", "latest", "--repo", repository, "--to", target, "--password-stdin"],
                                       stdin: shown.lowercased() + "\n")
        #expect(restored.code == 0, "\(restored.stderr)")
        #expect(try Self.tree(target) == before)
        #expect(Self.listing(parent) == ["vault"] + Self.listing(target).map { "vault/" + $0 }, "no staging folder left")
        #expect(Set(try Self.names(machine, vault: target).keys) == ["a.jpg"])
    }

    /// A pack that only the second snapshot uses is damaged: check --read-data reports
    /// it and fails, and the first snapshot still restores whole and opens.
    @Test func corruptedPack() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["add", "--password-stdin", try Self.photo(cli, "a.jpg", seed: 1)], stdin: "pw\n")
        let repository = cli.root + "/repository"
        try Self.ok(cli, ["backup", "init", repository])
        let first = try Self.snapshotID(Self.ok(cli, ["backup", "run"]))
        let firstTree = try Self.tree(cli.vault)
        let firstPacks = Self.packs(repository)
        try Self.ok(cli, ["add", "--password-stdin", try Self.randomFile(cli, "new.bin", megabytes: 2)], stdin: "pw\n")
        try Self.ok(cli, ["backup", "run"])
        let newPacks = Self.packs(repository).subtracting(firstPacks)
        try #require(!newPacks.isEmpty, "the second backup added packs")
        #expect(firstPacks.isSubset(of: Self.packs(repository)))

        // Flip a byte in the middle of the largest new pack.
        let size = { (pack: String) in (try? FileManager.default.attributesOfItem(atPath: repository + "/data/" + pack)[.size] as? NSNumber)?.intValue ?? 0 }
        let victim = repository + "/data/" + newPacks.max { size($0) < size($1) }!
        var bytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        bytes[bytes.count / 2] ^= 0x01
        chmod(victim, 0o600)
        try bytes.write(to: URL(fileURLWithPath: victim))

        let check = try cli.run(["backup", "check", "--read-data"])
        #expect(check.code == 1, "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("obscura: error: the repository \(repository) has errors"), "\(check.stderr)")
        let packID = String((victim as NSString).lastPathComponent.prefix(8))
        #expect(check.stdout.contains(packID), "the report names the pack: \(check.stdout)")

        let restored = cli.root + "/restored-first"
        try Self.ok(cli, ["backup", "restore", first, "--to", restored])
        #expect(try Self.tree(restored) == firstTree)
        #expect(Set(try Self.names(cli, vault: restored).keys) == ["a.jpg"])
        let verified = try Self.ok(cli, ["verify", "--password-stdin"], stdin: "pw\n", vault: restored)
        #expect(verified.stdout.contains("0 problems"), "\(verified.stdout)")
        // The latest needs the damaged pack: its restore fails and leaves nothing.
        let broken = cli.root + "/restored-latest"
        let failed = try cli.run(["backup", "restore", "latest", "--to", broken])
        #expect(failed.code == 1, "\(failed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: broken))
        #expect(!Self.listing(cli.root).contains { $0.hasPrefix(".obscura-restore-") }, "no staging folder left")
    }

    /// A file restic cannot read fails the run (restic's exit 3): the message names it,
    /// and the partial snapshot restic saved is forgotten. The unreadable file is a
    /// bind mount of a live process's /proc/PID/mem, whose reads fail with EIO even for root.
    @Test func anUnreadableFileFailsTheRunAndLeavesNoSnapshot() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["add", "--password-stdin", try Self.photo(cli, "a.jpg", seed: 1)], stdin: "pw\n")
        try Self.ok(cli, ["backup", "init", cli.root + "/repository"])
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["600"]
        try sleeper.run()
        defer { kill(sleeper.processIdentifier, SIGKILL); sleeper.waitUntilExit() }
        let file = cli.vault + "/media/" + UUID().uuidString.lowercased() + ".data.enc"
        try #require(FileManager.default.createFile(atPath: file, contents: Data()))
        _ = try Loopback.run("/bin/mount", ["--bind", "/proc/\(sleeper.processIdentifier)/mem", file])
        defer { _ = try? Loopback.run("/bin/umount", ["-l", file]) }

        let failed = try cli.run(["backup", "run"])
        #expect(failed.code == 1, "\(failed.stdout) \(failed.stderr)")
        #expect(failed.stderr.contains("obscura: error: the backup is incomplete: 1 file(s) could not be read ("), "\(failed.stderr)")
        #expect(failed.stderr.contains((file as NSString).lastPathComponent), "the message names the file: \(failed.stderr)")
        #expect(try Self.snapshots(cli).isEmpty, "the incomplete snapshot is forgotten")
    }

    // MARK: Refusals

    /// `backup run` while another process holds the directory exits 75 at once.
    @Test func runWhileTheDirectoryIsHeld() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["backup", "init", cli.root + "/repository"])
        var lock: DirectoryLock? = try DirectoryLock(path: cli.vault)
        let held = try cli.run(["backup", "run"])
        #expect(lock != nil)
        lock = nil
        #expect(held.code == 75, "\(held.stderr)")
        #expect(held.stderr.contains("obscura: error: vault directory \(Self.canonical(cli.vault)) is in use by another obscura process; nothing was backed up (if it is `obscura serve`, it backs the directory up by itself 10 minutes after a change)"), "\(held.stderr)")
        #expect(try Self.snapshots(cli).isEmpty)
        // Released, it runs.
        try Self.ok(cli, ["backup", "run"])
    }

    /// A restore never writes into a directory that holds anything.
    @Test func restoreIntoANonEmptyDirectoryIsRefused() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        try Self.ok(cli, ["backup", "init", cli.root + "/repository"])
        try Self.ok(cli, ["backup", "run"])
        let target = cli.root + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target + "/keep.txt"))
        let rootBefore = Self.listing(cli.root).filter { !$0.hasPrefix("cache") && !$0.hasPrefix("config") }
        let refused = try cli.run(["backup", "restore", "latest", "--to", target])
        #expect(refused.code == 1)
        #expect(refused.stderr.contains("obscura: error: \(Self.canonical(target)) exists and is not empty; a restore never writes over a directory"), "\(refused.stderr)")
        #expect(Self.listing(target) == ["keep.txt"])
        #expect(try String(contentsOfFile: target + "/keep.txt", encoding: .utf8) == "mine")
        #expect(Self.listing(cli.root).filter { !$0.hasPrefix("cache") && !$0.hasPrefix("config") } == rootBefore)
        // Nor over the live vault, nor a file.
        #expect(try cli.run(["backup", "restore", "latest", "--to", cli.vault]).code == 1)
        #expect(try cli.run(["backup", "restore", "latest", "--to", target + "/keep.txt"]).code == 1)
        #expect(try String(contentsOfFile: target + "/keep.txt", encoding: .utf8) == "mine")
        // An empty directory is fine.
        let empty = cli.root + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try Self.ok(cli, ["backup", "restore", "latest", "--to", empty])
        #expect(try Self.tree(empty) == Self.tree(cli.vault))
    }

    /// A second `backup init` needs --replace; a repository that exists is joined only
    /// with its own password.
    @Test func initTwiceAndJoiningAnExistingRepository() throws {
        let cli = try Self.runner()
        try cli.initializeQuickly(password: "pw")
        let repository = cli.root + "/repository"
        let shown = try Self.shownPassword(Self.ok(cli, ["backup", "init", repository]))
        let again = try cli.run(["backup", "init", cli.root + "/elsewhere"])
        #expect(again.code == 1)
        #expect(again.stderr == "obscura: error: this directory already backs up to \(repository); pass --replace to back up elsewhere from now on\n")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/elsewhere"))
        #expect(try Self.ok(cli, ["backup", "status"]).stdout.contains("Repository:   \(repository)\n"))
        try Self.ok(cli, ["backup", "run"])

        // A second vault directory, pointed at the same repository: asked for its password.
        let other = try Self.runner()
        try other.initializeQuickly(password: "pw2")
        for wrong in ["AAAAA-BBBBB-CCCCC-DDDDD", "wrong"] {
            let refused = try other.run(["backup", "init", repository, "--password-stdin"], stdin: wrong + "\n")
            #expect(refused.code == 1)
            #expect(refused.stderr.contains("obscura: error: wrong backup password: it does not open this repository"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: Self.passwordFile(other)), "no password file kept")
            let none = try other.run(["backup", "status"])
            #expect(none.code == 1 && none.stderr.contains("no backup is set up"), "no set-up saved: \(none.stdout)")
        }
        let joined = try Self.ok(other, ["backup", "init", repository, "--password-stdin"], stdin: shown.lowercased() + "\n")
        #expect(joined.stdout.contains("Joined the existing restic repository \(repository)."), "\(joined.stdout)")
        #expect(!joined.stdout.contains(shown), "the password is not shown again")
        #expect(try String(contentsOfFile: Self.passwordFile(other), encoding: .utf8) == shown.replacingOccurrences(of: "-", with: "") + "\n")
        try Self.ok(other, ["backup", "run"])
        let both = try Self.snapshots(other)
        #expect(Set(both.compactMap { ($0["paths"] as? [String])?.first }) == [Self.canonical(cli.vault), Self.canonical(other.vault)])

        // --replace moves the set-up (to a new password file; the old one is never overwritten).
        let moved = try Self.ok(cli, ["backup", "init", cli.root + "/elsewhere", "--replace", "--backup-password-file", cli.root + "/second-password"])
        #expect(moved.stdout.contains("Created the restic repository \(cli.root)/elsewhere."))
        #expect(try Self.ok(cli, ["backup", "status"]).stdout.contains("Repository:   \(cli.root)/elsewhere\n"))
        #expect(try Self.snapshots(cli).isEmpty, "the new repository is empty")
        #expect(FileManager.default.fileExists(atPath: repository + "/config"), "the old repository keeps its snapshots")
    }

    // MARK: Keyring

    /// With a Secret Service and no password file, the backup password lives in the
    /// keyring: init then run work, and no file holds it.
    @Test func backupPasswordInTheKeyring() throws {
        let service = try PrivateSecretService(exportAddress: false)
        defer { service.stop() }
        let cli = try CLIRunner()
        cli.environment = ["XDG_CACHE_HOME": cli.root + "/cache", "DBUS_SESSION_BUS_ADDRESS": service.address]
        try cli.initializeQuickly(password: "pw")
        let setUp = try Self.ok(cli, ["backup", "init", cli.root + "/repository"])
        let shown = try Self.shownPassword(setUp)
        #expect(setUp.stdout.contains("The backup password is kept in the keyring."), "\(setUp.stdout)")
        try Self.ok(cli, ["backup", "run"])
        #expect(try Self.snapshots(cli).count == 1)
        #expect(try Self.ok(cli, ["backup", "status"]).stdout.contains("Password in:  the keyring\n"))

        let found = try service.secretToolSearch(schema: "org.obscura.BackupPassword")
        #expect(found.contains("Obscura backup password"), "\(found)")
        #expect(found.contains("secret = " + shown.replacingOccurrences(of: "-", with: "")), "the canonical password: \(found)")
        // No file anywhere in the runner's root holds it.
        let canonical = Data(shown.replacingOccurrences(of: "-", with: "").utf8)
        for path in Self.listing(cli.root) where !path.hasPrefix("repository") && !path.hasPrefix("cache") {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: cli.root + "/" + path))) ?? Data()
            #expect(data.range(of: canonical) == nil, "\(path) holds the backup password")
        }
        // Without the keyring, the run cannot read it and says so.
        service.stop()
        let noKeyring = try cli.run(["backup", "run"])
        #expect(noKeyring.code == 1)
        #expect(noKeyring.stderr.contains("the backup password is unavailable"), "\(noKeyring.stderr)")
    }
}
