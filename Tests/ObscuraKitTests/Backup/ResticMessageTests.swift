import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit

/// Issue 18: what restic 0.14 says, as the engine reads it. Every line below is one that
/// restic 0.14.0 printed (only paths, ids and times differ from run to run).
@Suite struct ResticMessageTests {
    @Test func statusLines() throws {
        let first = #"{"message_type":"status","percent_done":0,"total_files":1,"total_bytes":3000000}"#
        guard case let .status(start)? = ResticMessage(line: first) else { Issue.record("not a status: \(first)"); return }
        #expect(start.percentDone == 0 && start.totalFiles == 1 && start.totalBytes == 3_000_000)
        #expect(start.filesDone == nil && start.bytesDone == nil && start.secondsRemaining == nil, "left out: nil")
        #expect(BackupProgress(start) == BackupProgress(bytesDone: 0, totalBytes: 3_000_000, filesDone: 0, totalFiles: 1))

        let middle = #"{"message_type":"status","seconds_elapsed":2,"seconds_remaining":3,"percent_done":0.8787087879578787,"total_files":2,"files_done":1,"total_bytes":3000003,"bytes_done":2636129,"current_files":["/a"]}"#
        guard case let .status(status)? = ResticMessage(line: middle) else { Issue.record("not a status: \(middle)"); return }
        #expect(BackupProgress(status) == BackupProgress(bytesDone: 2_636_129, totalBytes: 3_000_003, filesDone: 1, totalFiles: 2, secondsRemaining: 3))
    }

    @Test func summaryLine() throws {
        let line = #"{"message_type":"summary","files_new":2,"files_changed":0,"files_unmodified":0,"dirs_new":0,"dirs_changed":0,"dirs_unmodified":0,"data_blobs":4,"tree_blobs":1,"data_added":3000833,"total_files_processed":2,"total_bytes_processed":3000003,"total_duration":0.274532142,"snapshot_id":"f212588e"}"#
        guard case let .summary(raw)? = ResticMessage(line: line) else { Issue.record("not a summary"); return }
        let summary = BackupSummary(raw)
        #expect(summary.snapshot == "f212588e")
        #expect(summary.filesNew == 2 && summary.filesChanged == 0 && summary.filesUnmodified == 0)
        #expect(summary.addedBytes == 3_000_833 && summary.totalBytes == 3_000_003)
        #expect(abs(summary.seconds - 0.274532142) < 1e-9 && !summary.secondPass)

        let again = #"{"message_type":"summary","files_new":0,"files_changed":10,"files_unmodified":1,"dirs_new":0,"dirs_changed":2,"dirs_unmodified":0,"data_blobs":3,"tree_blobs":3,"data_added":70514,"total_files_processed":11,"total_bytes_processed":10485766,"total_duration":0.3,"snapshot_id":"dc0b1a4d"}"#
        guard case let .summary(next)? = ResticMessage(line: again) else { Issue.record("not a summary"); return }
        #expect(next.filesChanged == 10 && next.filesUnmodified == 1 && next.dataAdded == 70_514)
    }

    @Test func errorLine() throws {
        // restic 0.14 prints these on standard error, naming the file by absolute path
        // even when it backs up `.`.
        let line = #"{"message_type":"error","error":{"Op":"open","Path":"b","Err":13},"during":"archival","item":"/tmp/rsrc2/b"}"#
        guard case let .error(error)? = ResticMessage(line: line) else { Issue.record("not an error"); return }
        #expect(error.during == "archival" && error.item == "/tmp/rsrc2/b")
        #expect(BackupEngine.relative("/srv/vault/media/a.data.enc", to: "/srv/vault") == "media/a.data.enc")
        #expect(BackupEngine.relative("/media/a.data.enc", to: "/srv/vault") == "media/a.data.enc")
        #expect(BackupEngine.relative("./data/x.db.enc", to: "/srv/vault") == "data/x.db.enc")
        #expect(BackupEngine.relative("/srv/vault2/media/a", to: "/srv/vault") == "srv/vault2/media/a", "a sibling is no prefix")
    }

    @Test func otherLinesAreNone() {
        for line in [
            "reading repository password from stdin",
            "Fatal: wrong password or no key found",
            #"{"message_type":"verbose_status","action":"new","item":"/b","duration":0.002950452,"data_size":0,"data_size_in_repo":0,"metadata_size":0,"metadata_size_in_repo":0,"total_files":0}"#,
            #"{"message_type":"summary","files_new":2}"#,
            #"{"message_type":"status","percent_done":"#,
            #"{"no_type":1}"#,
            "",
        ] {
            #expect(ResticMessage(line: line) == nil, "\(line)")
        }
    }

    @Test func snapshotListing() throws {
        let json = #"[{"time":"2026-11-27T03:36:03.402965751Z","tree":"066390d798233032da6e7e7f13df8924df1744bf3d4628e827c779e5da93b8ff","paths":["/tmp/rsrc"],"hostname":"vm","username":"root","tags":["obscura"],"id":"f212588edff7584fb13ecacb4dd1a0b7111bb4653d1239a1cd3057d4fea8d008","short_id":"f212588e"}]"#
        let snapshots = try JSONDecoder().decode([BackupSnapshot].self, from: Data(json.utf8))
        #expect(snapshots == [BackupSnapshot(id: "f212588edff7584fb13ecacb4dd1a0b7111bb4653d1239a1cd3057d4fea8d008", shortID: "f212588e",
                                             time: "2026-11-27T03:36:03.402965751Z", hostname: "vm", paths: ["/tmp/rsrc"])])
    }

    // MARK: Errors

    static func restic(_ location: String) throws -> Restic {
        Restic(repository: try BackupRepository(location), password: pw("x"))
    }

    @Test func classifiesWhatResticSays() throws {
        let local = try Self.restic("/tmp/repo")
        #expect(local.classify("reading repository password from stdin\nFatal: wrong password or no key found\n", "cat config") == .wrongPassword)
        #expect(local.classify("""
            Fatal: unable to open config file: stat /tmp/repo/config: no such file or directory
            Is there a repository at the following location?
            /tmp/repo

            """, "cat config") == .noRepository("/tmp/repo"))
        #expect(local.classify(
            "Fatal: unable to save snapshot: write /tmp/repo/data/ca/ca4c07b7-tmp-938625981: no space left on device\n", "backup")
            == .repositoryFull("Fatal: unable to save snapshot: write /tmp/repo/data/ca/ca4c07b7-tmp-938625981: no space left on device"))
        #expect(local.classify("""
            unable to create lock in backend: repository is already locked exclusively by PID 22321 on vm by root (UID 0, GID 0)
            lock was created at 2026-11-27 03:37:04 (684.710792ms ago)
            storage ID f2422701
            the `unlock` command can be used to remove stale locks

            """, "backup") == .repositoryLocked(
                "unable to create lock in backend: repository is already locked exclusively by PID 22321 on vm by root (UID 0, GID 0)"))
        #expect(local.classify("first\nsecond\nthird\nFatal: something else\n", "prune")
            == .resticFailed(command: "prune", detail: "second; third; Fatal: something else"))
        #expect(local.classify("", "check") == .resticFailed(command: "check", detail: ""))
    }

    @Test func aServerThatDoesNotAnswerIsUnreachableNotMissing() throws {
        // restic asks "Is there a repository" when the server refused the connection too.
        let rest = try Self.restic("rest:http://127.0.0.1:1/")
        #expect(rest.classify("""
            Fatal: unable to open config file: client.Head: Head "http://127.0.0.1:1/config": dial tcp 127.0.0.1:1: connect: connection refused
            Is there a repository at the following location?
            rest:http://127.0.0.1:1/

            """, "cat config") == .unreachable(
                repository: "rest:http://127.0.0.1:1/",
                detail: #"Fatal: unable to open config file: client.Head: Head "http://127.0.0.1:1/config": dial tcp 127.0.0.1:1: connect: connection refused"#))
        let sftp = try Self.restic("sftp:root@127.0.0.1:/tmp/x")
        #expect(sftp.classify("""
            subprocess ssh: ssh: connect to host 127.0.0.1 port 1: Connection refused
            Fatal: unable to open repository at sftp:root@127.0.0.1:/tmp/x: unable to start the sftp session, error: EOF

            """, "snapshots") == .unreachable(
                repository: "sftp:root@127.0.0.1:/tmp/x",
                detail: "Fatal: unable to open repository at sftp:root@127.0.0.1:/tmp/x: unable to start the sftp session, error: EOF"))
    }

    @Test func messagesNeverShowAURLPassword() throws {
        // restic itself hides the password of the URLs it prints (the first line, as
        // restic 0.14 says it); the engine hides the repository string wherever it shows.
        let restic = try Self.restic("rest:https://user:hunter2@nas:8000/")
        let errors = [
            restic.classify("Fatal: unable to open config file: client.Head: Head \"https://user:***@nas:8000/config\": dial tcp 127.0.0.1:8000: connect: connection refused\nIs there a repository at the following location?\nrest:https://user:***@nas:8000/\n", "init"),
            restic.classify("Fatal: create repository at rest:https://user:hunter2@nas:8000/ failed: no space left on device\n", "init"),
            restic.classify("Fatal: create repository at rest:https://user:hunter2@nas:8000/ failed: 500 Internal Server Error\n", "init"),
            restic.classify("Is there a repository at the following location?\nrest:https://user:hunter2@nas:8000/\n", "init"),
        ]
        for error in errors {
            #expect(!"\(error)".contains("hunter2"), "\(error)")
        }
        #expect("\(errors[0])".contains("rest:https://user:***@nas:8000/"))
    }

    /// What restic 0.14 printed, and nothing else, when a backup filled its repository's
    /// disk (it crashes instead of saying "no space left on device").
    static let crash = """
        panic: runtime error: invalid memory address or nil pointer dereference
        [signal SIGSEGV: segmentation violation code=0x1 addr=0x10 pc=0x790fec]

        goroutine 52 [running]:
        github.com/restic/restic/internal/archiver.(*BlobSaver).Save(0x0, {0x104abd0, 0xc00018b500}, 0x2, 0xc0000d82e0)
        \tgithub.com/restic/restic/internal/archiver/blob_saver.go:49 +0x6c
        github.com/restic/restic/internal/archiver.(*Archiver).saveTree(0xc00007ccf0, {0x104abd0, 0xc00018b500}, 0x1?)
        \tgithub.com/restic/restic/internal/archiver/archiver.go:185 +0x134
        golang.org/x/sync/errgroup.(*Group).Go.func1()
        \tgolang.org/x/sync/errgroup/errgroup.go:75 +0x64
        created by golang.org/x/sync/errgroup.(*Group).Go
        \tgolang.org/x/sync/errgroup/errgroup.go:72 +0xa5

        """

    @Test func aCrashIsAFullDiskOnlyWhereTheLocalRepositoryHasNoRoom() throws {
        let root = try TestRoot()
        // Room to spare (the test machine's temporary folder), or a remote repository: a crash.
        for location in [root.path + "/repository", "rest:http://127.0.0.1:1/", "sftp:nas:/srv/repo"] {
            #expect(try Self.restic(location).classify(Self.crash, "backup") == .resticFailed(
                command: "backup", detail: "restic crashed: panic: runtime error: invalid memory address or nil pointer dereference"))
        }
        // A 4 MiB file system has no room for a 16 MiB pack.
        let disk = try TmpfsMount(megabytes: 4, parent: root.path)
        defer { disk.unmount() }
        for location in [disk.path + "/repository", "local:" + disk.path + "/repository/"] {
            let restic = try Self.restic(location)
            #expect(restic.localFreeBytes().map { $0 <= 4 << 20 } == true)
            let error = restic.classify(Self.crash, "backup")
            guard case let .repositoryFull(detail) = error else { Issue.record("not a full disk: \(error)"); continue }
            #expect(detail.hasSuffix("bytes free where it lives; restic stopped: panic: runtime error: invalid memory address or nil pointer dereference"), "\(detail)")
            #expect("\(error)".hasPrefix("the backup repository has no space left ("))
        }
        #expect(try Self.restic("rest:http://127.0.0.1:1/").localFreeBytes() == nil)
    }
}
