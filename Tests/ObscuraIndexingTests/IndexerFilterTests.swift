import CObscuraSandbox
import Foundation
import Testing
@testable import ObscuraIndexing

/// docs/SEARCH.md §S3.4.2: one test per row of the filter's table and for Landlock, each
/// by a debug build's probe that makes the worker try the call.
@Suite struct IndexerFilterTests {
    static func probe(_ probe: Int, path: String = "", readPaths: [String] = []) throws -> Int32 {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable, readPaths: readPaths)
        defer { worker.stop() }
        return try worker.probe(UInt8(probe), path: path)
    }

    @Test func callsSeccompCannotInspectGetENOSYS() throws {
        #expect(try Self.probe(OBSCURA_PROBE_IO_URING) == ENOSYS)
        #expect(try Self.probe(OBSCURA_PROBE_OPENAT2) == ENOSYS)
        #expect(try Self.probe(OBSCURA_PROBE_CLONE3) == ENOSYS)
    }

    @Test func writingAndChangingFilesIsRefused() throws {
        let folder = try IndexerFixtures.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let existing = folder + "/existing"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: existing))
        // Landlock would refuse these too (EACCES); the folder is made readable so that the
        // answer is the filter's own EPERM.
        #expect(try Self.probe(OBSCURA_PROBE_OPEN_WRITE, path: folder + "/new", readPaths: [folder]) == EPERM)
        #expect(!FileManager.default.fileExists(atPath: folder + "/new"))
        #expect(try Self.probe(OBSCURA_PROBE_OPEN_WRITE, path: existing, readPaths: [folder]) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_UNLINK, path: existing, readPaths: [folder]) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_OPEN_TRUNC, path: existing, readPaths: [folder]) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_OPEN_RDWR, path: existing, readPaths: [folder]) == EPERM)
        // chmod's newer call, which Landlock does not govern (review I-R3).
        chmod(existing, 0o600)
        #expect(try Self.probe(OBSCURA_PROBE_FCHMODAT2, path: existing, readPaths: [folder]) == EPERM)
        var status = stat()
        #expect(stat(existing, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "kept")
    }

    @Test func noProcessIsMadeAndNoOtherProcessSignalled() throws {
        #expect(try Self.probe(OBSCURA_PROBE_FORK) == EPERM)
        // Signal 0 asks only whether a signal could be sent: the filter's answer without
        // the damage a SIGKILL to every process would do if the filter were missing.
        #expect(try Self.probe(OBSCURA_PROBE_KILL_ALL) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_KILL_PARENT) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_KILL_SELF) == 0)
        #expect(try Self.probe(OBSCURA_PROBE_DUMPABLE) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_TGKILL_PARENT) == EPERM)
        // The same refusals in the forms a compromised decoder would try next (review
        // I-R1, I-R2, I-R7, I-R8): the option with its upper bits set, a signal sent by the
        // kernel to a descriptor's owner, the parent's limits and scheduling, a terminal.
        #expect(try Self.probe(OBSCURA_PROBE_PRCTL_HIGH) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_SETOWN) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_PRLIMIT_PARENT) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_SCHED_PARENT) == EPERM)
        #expect(try Self.probe(OBSCURA_PROBE_TIOCSTI) == EPERM)
    }

    @Test func aCallNewerThanTheListIsRefused() throws {
        #expect(try Self.probe(OBSCURA_PROBE_NEW_CALL) == ENOSYS)
    }

    @Test(arguments: [OBSCURA_PROBE_SOCKET, OBSCURA_PROBE_EXECVE, OBSCURA_PROBE_X32, OBSCURA_PROBE_PTRACE, OBSCURA_PROBE_SHMGET])
    func networkAndEscapeKillTheWorker(probe: Int) throws {
        #expect(throws: IndexerError.ended(status: 0, signal: SIGSYS)) { _ = try Self.probe(probe) }
    }

    @Test func landlockLetsItReadOnlyTheSystemAndWhatItIsGiven() throws {
        let folder = try IndexerFixtures.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Where a vault directory or a key file would be.
        let secret = folder + "/outer.key"
        try Data("not for the worker".utf8).write(to: URL(fileURLWithPath: secret))
        #expect(try Self.probe(OBSCURA_PROBE_READ, path: secret) == EACCES)
        #expect(try Self.probe(OBSCURA_PROBE_READ, path: "/usr/share/tesseract-ocr") == 0)
        #expect(try Self.probe(OBSCURA_PROBE_READ, path: secret, readPaths: [folder]) == 0)
    }
}
