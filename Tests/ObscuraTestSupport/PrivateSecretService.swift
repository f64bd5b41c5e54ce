import Foundation

/// A real Secret Service for one test: a private D-Bus session bus (its own
/// dbus-daemon, no service activation) and, on it, gnome-keyring-daemon with its
/// `login` collection created and unlocked by a test password, its files in a
/// temporary home. Unless told not to, the test process's `DBUS_SESSION_BUS_ADDRESS`
/// points at the bus until ``stop()``, which kills both daemons and restores the
/// variable; a test that only hands ``address`` to child processes leaves it alone, so
/// that it may run beside tests that use the variable.
///
/// Every failure to start says which program failed and why; nothing is skipped.
package final class PrivateSecretService {
    package static let password = "obscura keyring test password"

    package let root: String
    package let address: String
    private let bus: Process
    private var keyring: Process?
    private let previousAddress: String?
    private let exported: Bool

    /// Starts the bus, and the keyring daemon on it unless `keyring` is false.
    package init(keyring startKeyring: Bool = true, exportAddress: Bool = true) throws {
        exported = exportAddress
        root = FileManager.default.temporaryDirectory.path + "/obscura-keyring-\(UUID().uuidString)"
        for dir in ["", "/home", "/run", "/data", "/config"] {
            try FileManager.default.createDirectory(
                atPath: root + dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // No <servicedir>: nothing is started on demand, so "no keyring" means none.
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(root)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: root + "/bus.conf", atomically: true, encoding: .utf8)
        bus = try Self.launch(
            "dbus-daemon", ["--config-file=\(root)/bus.conf", "--nofork", "--print-address=1"],
            environment: [:], output: root + "/bus.out", errors: root + "/bus.err")
        let busOutput = root + "/bus.out"
        let printed = try Self.waitFor("dbus-daemon to print its address", bus, errors: root + "/bus.err") {
            (try? String(contentsOfFile: busOutput, encoding: .utf8))?
                .split(separator: "\n").first.map(String.init)
        }
        address = printed
        previousAddress = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        if exportAddress { setenv("DBUS_SESSION_BUS_ADDRESS", address, 1) }
        if startKeyring {
            do { try self.startKeyring() } catch { stop(); throw error }
        }
    }

    deinit { stop() }

    /// Starts gnome-keyring-daemon (secrets component only) on the bus, unlocking (and
    /// the first time creating) its `login` collection with ``password``, and waits
    /// until it owns `org.freedesktop.secrets`.
    package func startKeyring() throws {
        let process = try Self.launch(
            "gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": root + "/home", "XDG_RUNTIME_DIR": root + "/run",
                "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
            ],
            output: root + "/keyring.out", errors: root + "/keyring.err", input: Self.password)
        keyring = process
        _ = try Self.waitFor("gnome-keyring-daemon to own org.freedesktop.secrets", process, errors: root + "/keyring.err") {
            try? self.dbusSend(
                "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                "string:org.freedesktop.secrets"
            ).contains("boolean true") ? true : nil
        }
    }

    /// Locks the `login` collection, as a screen lock or `Service.Lock` does; unlocking
    /// it again would need the password, that is, a prompt.
    package func lockLogin() throws {
        _ = try dbusSend(
            "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
            "array:objpath:/org/freedesktop/secrets/collection/login")
    }

    /// Makes the in-memory `session` collection the default one, as some desktops and
    /// password managers leave it.
    package func makeSessionCollectionDefault() throws {
        _ = try dbusSend(
            "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SetAlias",
            "string:default", "objpath:/org/freedesktop/secrets/collection/session")
    }

    /// Stops (SIGSTOP) or resumes the keyring daemon: stopped, it holds its bus name
    /// and answers nothing, as a hung daemon would.
    package func suspendKeyring(_ suspended: Bool) {
        if let keyring { kill(keyring.processIdentifier, suspended ? SIGSTOP : SIGCONT) }
    }

    /// `secret-tool search --all` of the schema, for checking items from outside: its
    /// output (label, schema) then its error output (where it lists attributes).
    package func secretToolSearch(schema: String) throws -> String {
        let result = try Self.run("secret-tool", ["search", "--all", "xdg:schema", schema], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        return result.output + result.errors
    }

    /// Kills both daemons (those this object started, by their ids), restores the
    /// environment and removes the temporary home.
    package func stop() {
        for process in [keyring, bus].compactMap({ $0 }) where process.isRunning {
            // SIGKILL: the children inherit the test runner's signal mask, in which
            // SIGTERM is blocked, and a test daemon has nothing to save.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        keyring = nil
        if exported {
            if let previousAddress { setenv("DBUS_SESSION_BUS_ADDRESS", previousAddress, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    private func dbusSend(_ arguments: String...) throws -> String {
        try Self.run("dbus-send", ["--session", "--print-reply"] + arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address]).output
    }

    // MARK: Processes

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The full path of `program` on PATH, or a failure saying to run scripts/setup.
    package static func locate(_ program: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(program)") {
            return "\(dir)/\(program)"
        }
        throw StartFailure(description: "\(program) is not installed (not on PATH); run scripts/setup, which installs gnome-keyring, dbus and libsecret-tools")
    }

    package static func launch(
        _ program: String, _ arguments: [String], environment: [String: String], output: String, errors: String,
        input: String? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(program))
        process.arguments = arguments
        process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { a, _ in a }
        for file in [output, errors] where !FileManager.default.createFile(atPath: file, contents: nil) {
            throw StartFailure(description: "cannot create \(file)")
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        let pipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : pipe
        try process.run()
        if let input {
            try pipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        }
        return process
    }

    /// Polls `ready` for up to 10 seconds; fails with the program's error output if it
    /// exits first or never becomes ready.
    package static func waitFor<T>(_ what: String, _ process: Process, errors: String, _ ready: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let value = try ready() { return value }
            if !process.isRunning { break }
            usleep(50_000)
        }
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let state = process.isRunning ? "still running" : "exited with status \(process.terminationStatus)"
        throw StartFailure(description: "timed out waiting for \(what) (\(state)); its error output: \(stderr)")
    }

    /// Runs `program` to completion (at most 10 seconds) and returns its output and
    /// error output; throws with its error output when it fails.
    package static func run(_ program: String, _ arguments: [String], environment: [String: String]) throws -> (output: String, errors: String) {
        let dir = FileManager.default.temporaryDirectory.path + "/obscura-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let process = try launch(program, arguments, environment: environment, output: dir + "/out", errors: dir + "/err")
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartFailure(description: "\(program) \(arguments.joined(separator: " ")) did not finish in 10 s")
        }
        let out = (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw StartFailure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(err)")
        }
        return (out, err)
    }
}
