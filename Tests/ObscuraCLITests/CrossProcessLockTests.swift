import Foundation
import ObscuraKit
import ObscuraTestSupport
import Testing

/// Issue #6 item 5, across processes: while one `obscura` holds a vault directory (here
/// an `add` that has taken the lock and waits for its password), every other process,
/// CLI or library, is refused at once with the "in use" error and exit code 75, and the
/// first one then finishes its work unharmed.
@Suite struct CrossProcessLockTests {
    /// Waits until process `pid` has the directory `path` open (the lock is taken right
    /// after the open), without touching the lock itself.
    func waitUntilOpened(_ path: String, by pid: Int32) throws {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for _ in 0..<400 {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            if fds.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == resolved }) {
                Thread.sleep(forTimeInterval: 0.05)
                return
            }
            Thread.sleep(forTimeInterval: 0.025)
        }
        Issue.record("process \(pid) never opened \(path)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "needs /proc (Linux)"))
    func secondProcessIsRefusedWhileTheFirstKeepsWorking() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        let src = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        try Data(TestImages.image("jpg", width: 300, height: 200)).write(to: URL(fileURLWithPath: src + "/a.jpg"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: src + "/b.txt"))
        let inUse = "obscura: error: vault directory \(cli.vault) is in use by another obscura process; if that is `obscura serve`, do this in its gallery, or stop it (Ctrl+C) and run the command again; any other command holding it ends by itself\n"
        let rounds = Hardening.scale(2, full: 10)
        var refused = 0, firstFailed = 0
        for round in 0..<rounds {
            let first = try cli.start(["add", "--password-stdin", src + (round == 0 ? "" : "/b.txt")])
            try waitUntilOpened(cli.vault, by: first.process.processIdentifier)
            for args in [["status"], ["ls", "--password-stdin"], ["add", "--password-stdin", src], ["passwd", "--password-stdin", "--allow-weak-password"],
                         ["init"], ["export", "--password-stdin", "--allow-weak-password", "-o", cli.root + "/x.obscura"]] {
                let second = try cli.run(args, stdin: "pw\nother\n")
                #expect(second.code == 75, "\(args): \(second.stderr)")
                #expect(second.stderr == inUse && second.stdout.isEmpty, "\(args)")
                refused += 1
            }
            #expect(throws: VaultError.inUse(cli.vault)) {
                try cli.openDirectory()
            }
            refused += 1
            // The first process has been waiting all along; now it does its work.
            first.send("pw\n")
            let done = first.finish()
            #expect(done.code == 0, "\(done.stderr)")
            if done.code != 0 { firstFailed += 1 }
            #expect(done.stdout.hasPrefix(round == 0 ? "Imported 2 files" : "Imported 0 files"), "\(done.stdout)")
        }
        // Released: the next process gets in and sees what the first wrote.
        let list = try cli.run(["ls", "--json", "--password-stdin"], stdin: "pw\n")
        #expect(list.code == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 2)
        Hardening.report("concurrency", "cross-process", ["rounds": rounds, "second-process-refused": refused, "first-process-failed": firstFailed])
    }
}
