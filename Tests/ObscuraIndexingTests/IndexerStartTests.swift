import Foundation
import Testing
@testable import ObscuraIndexing

/// docs/SEARCH.md §S3.4.1: how a role is started, what it is before it says `hello`, and
/// that it never outlives its parent or its deadline.
@Suite struct IndexerStartTests {
    @Test func theIndexRoleReportsItsHardening() throws {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        let diag = try worker.diagnostics()
        #expect(diag["fds"] == "0,1,2,3")
        #expect(diag["env"]?.split(separator: ",").sorted() == ["LC_ALL", "MALLOC_ARENA_MAX", "OMP_THREAD_LIMIT", "OMP_WAIT_POLICY"])
        #expect(diag["dumpable"] == "0")
        #expect(diag["nonewprivs"] == "1")
        #expect(diag["tracer"] == "0")
        #expect(worker.landlockABI >= 1)
        #expect(diag["seccomp"] == "2")
        #expect(diag["sched_idle"] == "1")
        #expect(diag["oom_score_adj"] == "1000")
        #expect(diag["limit_as"] == String(4 << 30))
        #expect(diag["limit_fsize"] == "0")
        #expect(diag["limit_core"] == "0")
        #expect(diag["limit_nofile"] == "64")
        // Landlock is best effort; this project's machines (Linux 6.x) have it, and a
        // kernel without it must be noticed here rather than pass quietly.
        #expect(Int(diag["landlock"] ?? "") ?? 0 >= 1)
        #expect(diag["pid"] == worker.pid.map(String.init))
    }

    @Test func theQueryRoleRunsAtNormalPriorityUnderItsOwnLimit() throws {
        let worker = try IndexerProcess.start(role: .query, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        let diag = try worker.diagnostics()
        #expect(diag["sched_idle"] == "0")
        #expect(diag["limit_as"] == String(2 << 30))
        #expect(diag["seccomp"] == "2")
    }

    @Test func aWorkerWhoseParentIsNotItsParentExitsBeforeHello() throws {
        // What a worker sees when its parent died before the death signal was set: its
        // parent is then another process than the one named.
        // Exit status 11: the first start step refused, not another (10 + the step).
        #expect(throws: IndexerError.ended(status: 11, signal: 0)) {
            _ = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable, readPaths: [], parent: 1)
        }
    }

    @Test func anItemThatNeverAnswersIsKilledAtItsDeadline() throws {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        let pid = try #require(worker.pid)
        let started = ContinuousClock.now
        #expect(throws: IndexerError.timedOut) {
            _ = try worker.probe(ProbeRequest.hang, timeout: .seconds(1))
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(worker.stopped)
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(throws: IndexerError.stopped) { _ = try worker.diagnostics() }
    }

    @Test func stopKillsAWorkerBusyWithAnItemAtOnce() throws {
        // Lock must not wait behind the item in flight (§S3.4, review I-R5).
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        let pid = try #require(worker.pid)
        let busy = Thread { _ = try? worker.probe(ProbeRequest.hang, timeout: .seconds(30)) }
        busy.start()
        usleep(300_000)
        let started = ContinuousClock.now
        worker.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func theIndexerBesideTheProgramIsFoundAndChecked() throws {
        // Beside the test bundle: found, and accepted exactly when the checkout's folders
        // are safe (on a machine where one above it is group-writable, refused).
        if IndexerFixtures.foldersAreSafe(above: IndexerFixtures.built) {
            let (path, identity) = try IndexerExecutable.located()
            #expect(path == IndexerFixtures.built)
            #expect(try IndexerExecutable.check(IndexerFixtures.built) == identity)
        } else {
            #expect(throws: IndexerError.self) { _ = try IndexerExecutable.located() }
        }
    }

    /// The server's death, played by a shell that starts the worker as its own child and
    /// is then killed with SIGKILL, idle and in the middle of an item.
    @Test(arguments: [false, true]) func aWorkerDoesNotOutliveItsParent(working: Bool) throws {
        let folder = try IndexerFixtures.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let script = "\"$0\" --role index --parent $$ & wait"
        let spawned = IndexerHost.shared.spawn(path: "/bin/sh", arguments: ["sh", "-c", script, IndexerFixtures.executable],
                                               environment: IndexerProcess.environment, socket: pair[1])
        close(pair[1])
        let shell = try spawned.get()
        let worker = IndexerProcess(socket: pair[0], pid: nil)
        defer { worker.stop() }
        try worker.expectHello()
        let pid = try #require(Int32(worker.diagnostics()["pid"] ?? ""))
        #expect(pid != shell)
        if working {
            _ = try worker.load(languages: "eng")
            let page = try IndexerFixtures.page(String(repeating: "A line of words to read slowly. ", count: 40), in: folder)
            // Sent without waiting for the result: the worker is busy reading when its
            // parent dies.
            let channel = FrameChannel(descriptor: pair[0], isParent: true)
            let header = ItemHeader(id: 7, wanted: .text, mime: "image/png").encoded()
            try (header + page).withUnsafeBytes { try channel.send(.item, [$0]) }
            usleep(200_000)
        }
        kill(shell, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(shell, &status, 0)
        let deadline = ContinuousClock.now + .seconds(1)
        while !IndexerFixtures.isGone(pid), ContinuousClock.now < deadline { usleep(20_000) }
        #expect(IndexerFixtures.isGone(pid))
        if !IndexerFixtures.isGone(pid) { kill(pid, SIGKILL) }
    }

    @Test func anIndexerOthersMayChangeIsNotRun() throws {
        let folder = try IndexerFixtures.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/obscura-indexer"
        try FileManager.default.copyItem(atPath: IndexerFixtures.executable, toPath: copy)
        chmod(folder, 0o755)
        chmod(copy, 0o755)
        try IndexerExecutable.check(copy)
        func refused(_ body: () throws -> Void) -> Bool {
            do { try body(); return false } catch IndexerError.unsafe { return true } catch { return false }
        }
        chmod(copy, 0o775)
        #expect(refused { try IndexerExecutable.check(copy) })
        chmod(copy, 0o755)
        chmod(folder, 0o777)
        #expect(refused { _ = try IndexerProcess.start(role: .index, executable: copy) })
        chmod(folder, 0o755)
        // A folder above, writable by its group (review I-R13).
        let inner = folder + "/inner"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: copy, toPath: inner + "/obscura-indexer")
        chmod(inner, 0o755)
        try IndexerExecutable.check(inner + "/obscura-indexer")
        chmod(folder, 0o775)
        #expect(refused { try IndexerExecutable.check(inner + "/obscura-indexer") })
        chmod(folder, 0o755)
        // A link is not the file.
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: copy)
        #expect(refused { try IndexerExecutable.check(folder + "/link") })
        #expect(throws: IndexerError.notFound(folder + "/missing")) { try IndexerExecutable.check(folder + "/missing") }
    }
}
