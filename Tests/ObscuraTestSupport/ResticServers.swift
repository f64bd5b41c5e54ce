import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Real servers for the backup tests, started on loopback by the test that uses them:
/// restic's REST backend served by rclone, and an SFTP server (a throwaway sshd). Both
/// pick a free port, retry on another when it was taken in between, and wait until the
/// port accepts connections; every failure to start says which program failed and its
/// error output. Nothing is skipped: a missing program is a failure (scripts/setup
/// installs restic, rclone and openssh-server).
///
/// Processes are stopped with SIGKILL: children inherit the test runner's signal mask,
/// in which SIGTERM is blocked, and a test server has nothing to save.
package enum Loopback {
    /// A failure to start a server, with the program's own words.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now, below the ephemeral range
    /// (so that a client's outgoing connection never holds it when a server restarts).
    package static func freePort() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            if canBind(port) { return port }
        }
        throw StartFailure(description: "no free TCP port on 127.0.0.1 between 20000 and 32000 after 200 tries")
    }

    /// Whether a listening socket could be bound to 127.0.0.1:`port` now.
    static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Whether something accepts a TCP connection at 127.0.0.1:`port`.
    package static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    #if os(Linux)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Starts a server with `launch` on a free port until one accepts connections: a
    /// server that exits at once because the port was taken meanwhile gets another.
    static func start(
        _ name: String, errors: String, port fixed: Int? = nil, _ launch: (Int) throws -> Process
    ) throws -> (Process, Int) {
        var last = ""
        for _ in 0..<(fixed == nil ? 5 : 1) {
            let port = try fixed ?? freePort()
            let process = try launch(port)
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline && process.isRunning && !accepts(port) { usleep(20_000) }
            if process.isRunning && accepts(port) { return (process, port) }
            let running = process.isRunning
            if running { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            last = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            let state = running ? "did not accept connections in 15 s" : "exited with status \(process.terminationStatus)"
            last = "\(name) on 127.0.0.1:\(port) \(state); its error output: \(last)"
            if running || !last.lowercased().contains("address already in use") { break }
        }
        throw StartFailure(description: "could not start \(last)")
    }

    /// The full path of `program` on PATH (and the sbin folders), or a failure saying to
    /// run scripts/setup.
    package static func locate(_ program: String) throws -> String {
        if program.hasPrefix("/") {
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw StartFailure(description: "\(program) is not installed; run scripts/setup (it installs restic, rclone and openssh-server)")
            }
            return program
        }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(program)") {
            return "\(dir)/\(program)"
        }
        throw StartFailure(description: "\(program) is not installed (not on PATH); run scripts/setup (it installs restic, rclone and openssh-server)")
    }

    /// Starts `program` with its output and error output in files.
    static func launch(_ program: String, _ arguments: [String], output: String, errors: String, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(program))
        process.arguments = arguments
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        env.merge(environment) { $1 }
        process.environment = env
        for file in [output, errors] where !FileManager.default.createFile(atPath: file, contents: nil) {
            throw StartFailure(description: "cannot create \(file)")
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        do { try process.run() } catch {
            throw StartFailure(description: "cannot run \(program): \(error)")
        }
        return process
    }

    /// Runs `program` to its end and returns its output; throws with its error output
    /// when it fails.
    package static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(program))
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StartFailure(description: "\(program) \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Kills `process` (SIGKILL) and waits for it.
    static func stop(_ process: Process?) {
        guard let process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// restic's REST backend served by `rclone serve restic` over a folder, on a free port
/// of 127.0.0.1: the repository `rest:http://127.0.0.1:PORT/`. ``kill()`` stops it as a
/// crash would, ``restart(bandwidthLimit:)`` serves the same folder on the same port again.
package final class RcloneRestServer {
    /// The folder holding the repository's files.
    package let directory: String
    /// The port it listens on.
    package private(set) var port = 0
    private var process: Process?
    private let root: String

    /// The restic repository string.
    package var repository: String { "rest:http://127.0.0.1:\(port)/" }

    /// Serves `directory` (a new folder under `root` when nil). `bandwidthLimit` is
    /// rclone's `--bwlimit` (`8M`: 8 MiB/s), to make a backup take a while.
    package init(root: String, directory: String? = nil, bandwidthLimit: String? = nil) throws {
        self.root = root
        self.directory = directory ?? root + "/rest-repository"
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
        try start(port: nil, bandwidthLimit: bandwidthLimit)
    }

    deinit { kill() }

    private func start(port fixed: Int?, bandwidthLimit: String?) throws {
        let errors = root + "/rclone.err"
        (process, port) = try Loopback.start("rclone serve restic", errors: errors, port: fixed) { port in
            try Loopback.launch(
                "rclone",
                ["serve", "restic", "--addr", "127.0.0.1:\(port)", "--config", root + "/rclone.conf"]
                    + (bandwidthLimit.map { ["--bwlimit", $0] } ?? []) + [directory],
                output: root + "/rclone.out", errors: errors)
        }
    }

    /// Whether the server process runs.
    package var isRunning: Bool { process?.isRunning ?? false }

    /// Kills the server (SIGKILL) and waits until it is gone.
    package func kill() {
        Loopback.stop(process)
        process = nil
    }

    /// Starts the server again on the same port and folder (after ``kill()``).
    package func restart(bandwidthLimit: String? = nil) throws {
        kill()
        try start(port: port, bandwidthLimit: bandwidthLimit)
    }
}

/// A throwaway OpenSSH server on a free port of 127.0.0.1 for SFTP: a generated host
/// key and user key, its own sshd_config (keys only, no PAM, `internal-sftp`), run in
/// the foreground. The user is the test's (root in CI); ``repository(_:)`` and
/// ``resticOption`` are what `restic` (and `obscura backup init ... -o`) take.
package final class ThrowawaySSHD {
    /// Where its keys, configuration and logs live.
    package let root: String
    /// The port it listens on.
    package private(set) var port = 0
    /// The user key (private part) that logs in.
    package var userKey: String { root + "/user_key" }
    private var process: Process?

    /// Starts sshd with files under a new folder of `parent`.
    package init(parent: String) throws {
        root = parent + "/sshd-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keygen = "ssh-keygen"
        _ = try Loopback.run(keygen, ["-q", "-t", "ed25519", "-N", "", "-C", "obscura-test-host", "-f", root + "/host_key"])
        _ = try Loopback.run(keygen, ["-q", "-t", "ed25519", "-N", "", "-C", "obscura-test-user", "-f", userKey])
        try FileManager.default.copyItem(atPath: userKey + ".pub", toPath: root + "/authorized_keys")
        // The privilege separation folder sshd insists on.
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let sshd = try Loopback.locate("/usr/sbin/sshd")
        let errors = root + "/sshd.err"
        (process, port) = try Loopback.start("sshd", errors: errors) { port in
            let config = """
                Port \(port)
                ListenAddress 127.0.0.1
                HostKey \(root)/host_key
                AuthorizedKeysFile \(root)/authorized_keys
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                PermitRootLogin prohibit-password
                UsePAM no
                StrictModes no
                PidFile \(root)/sshd.pid
                Subsystem sftp internal-sftp

                """
            try config.write(toFile: root + "/sshd_config", atomically: true, encoding: .utf8)
            // Under a shell that waits for it: sshd closes every descriptor it inherits,
            // among them the one through which Foundation's Process learns that a child
            // ended, and Foundation would then wait on the running sshd, blocking the end
            // of every other child of the test process. The shell keeps it open.
            return try Loopback.launch(
                "/bin/sh", ["-c", #""$@"; status=$?; exit $status"#, "sh", sshd, "-f", root + "/sshd_config", "-D", "-e"],
                output: root + "/sshd.out", errors: errors)
        }
    }

    deinit { stop() }

    /// The restic repository at the absolute `path` on this server, for the test's user.
    package func repository(_ path: String) -> String { "sftp:\(Self.user)@127.0.0.1:\(path)" }

    /// restic's option making its ssh use this server's port and the user key, with no
    /// known-hosts file and no prompt.
    package var resticOption: String {
        "sftp.command=ssh -p \(port) -i \(userKey) -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes \(Self.user)@127.0.0.1 -s sftp"
    }

    /// The user tests run as (root in CI).
    static var user: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }

    /// Kills sshd (the listener; a session's own process ends with its connection), then
    /// the shell that waited for it.
    package func stop() {
        guard let process else { return }
        if let text = try? String(contentsOfFile: root + "/sshd.pid", encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 {
            kill(pid, SIGKILL)
        }
        Loopback.stop(process)
        self.process = nil
    }
}

/// A tmpfs of a few MiB mounted for one test at a new folder, unmounted (and the folder
/// removed) by ``unmount()`` or on release. Mounting needs root (CI runs tests as root):
/// a refusal is a failure that says so, never a skip.
package final class TmpfsMount {
    /// Where it is mounted.
    package let path: String
    private var mounted = true

    /// Mounts a tmpfs of `megabytes` MiB at a new folder under `parent`.
    package init(megabytes: Int, parent: String) throws {
        path = parent + "/tmpfs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            _ = try Loopback.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", path])
        } catch {
            rmdir(path)
            throw Loopback.StartFailure(description: "cannot mount a \(megabytes) MiB tmpfs at \(path) (the test needs root, as in CI; uid \(getuid())): \(error)")
        }
    }

    deinit { unmount() }

    /// Unmounts it (lazily, should a process still use it) and removes the folder.
    package func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? Loopback.run("/bin/umount", ["-l", path])
        rmdir(path)
    }
}
