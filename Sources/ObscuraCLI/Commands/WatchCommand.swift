import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura watch`: seal every new file of some folders into the vault directory's inbox
/// as a drop (docs/PHONE.md §W2), with the drop code only: no password, no key, no lock
/// of the vault directory, so it runs beside `obscura serve`.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Seal new photos and videos from folders into the vault's inbox, with its drop code.",
        discussion: """
            Each new or changed file that is complete (quiet for --settle seconds, not held \
            open by a writer, and, for JPEG, PNG, HEIF and movies, whole) is sealed to the \
            code and left in the inbox, which the vault takes in at its next unlock. Names \
            starting with a dot and temporaries (*.part, *.tmp, *.crdownload …) are skipped; \
            links are never followed. The watcher remembers what it sealed in a keyed journal \
            under $XDG_STATE_HOME/obscura/watch, outside the vault directory: a restart \
            seals what came while it was stopped, and nothing twice. At a folder's first \
            start, what is already there is left alone unless --existing is given. \
            --forget starts the folders' journals again: for one run by hand (with \
            --existing, to send a whole folder to a new code), never in a service unit. \
            With --remove-after, a file is removed once its vault has taken it in (not \
            merely once it is in the inbox), if it is unchanged, has no other name, and no \
            writer has it open; never in a Syncthing folder that is not Receive Only or a \
            Nextcloud client folder, whose deletions travel back. \
            Exit codes: 64 for what a restart cannot mend (a code that does not read, a code \
            file others can read, a folder inside the vault directory, --remove-after in a \
            folder that syncs deletions back), 75 when another watcher has a folder, 1 for \
            any other failure.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the drop code, readable by its owner only.", valueName: "file"))
    var codeFile: String?

    @Option(name: .long, help: ArgumentHelp("The vault's drop code (else --code-file, else $OBSCURA_DROP_CODE).", valueName: "code"))
    var code: String?

    @Flag(name: .long, help: "At a folder's first start, seal what is already there too.")
    var existing = false

    @Option(name: .long, help: ArgumentHelp("Seconds a file must stay unchanged before it is sealed.", valueName: "seconds"))
    var settle: Double = 10

    @Option(name: .long, help: ArgumentHelp(
        "Scan every so many seconds, without the system's change events (network and FUSE folders are scanned anyway).",
        valueName: "seconds"))
    var poll: Double?

    @Option(name: .long, help: ArgumentHelp("The most blobs to leave in the inbox (at most 1000).", valueName: "n"))
    var inboxLimit: Int = DropInbox.maximumBlobs

    @Option(name: .long, help: ArgumentHelp("Days the watcher remembers a sealed file's content.", valueName: "days"))
    var forgetAfter: Int = 30

    @Flag(name: .long, help: "Start each folder's journal again (one run by hand).")
    var forget = false

    @Flag(name: .long, help: "Remove each file once its vault has taken it in (README: what deleting does not erase).")
    var removeAfter = false

    @Flag(name: .long, help: "With --remove-after: remove even in a Syncthing or Nextcloud folder that syncs deletions back.")
    var removeAfterInSyncedFolder = false

    @Argument(help: ArgumentHelp("Folders to watch.", valueName: "folder"))
    var sources: [String]

    /// Seconds between full rescans when events are used (PHONE.md §W2.2).
    static let rescanSeconds: Double = 60

    /// Exit code of a refusal that a restart cannot mend (EX_USAGE), so that a service
    /// unit with `RestartPreventExitStatus=64` stops restarting.
    static let usageExitCode: Int32 = 64

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("Name at least one folder to watch.") }
        guard settle >= 0, settle <= 86_400 else { throw ValidationError("--settle is seconds, 0 to 86400.") }
        guard (poll ?? 1) >= 0.1, (poll ?? 1) <= 3_600 else { throw ValidationError("--poll is seconds, 0.1 to 3600.") }
        guard (1...DropInbox.maximumBlobs).contains(inboxLimit) else {
            throw ValidationError("--inbox-limit is 1 to \(DropInbox.maximumBlobs): every unlock of every vault tries what the inbox holds.")
        }
        guard forgetAfter >= 1 else { throw ValidationError("--forget-after is at least 1 day.") }
        guard removeAfter || !removeAfterInSyncedFolder else {
            throw ValidationError("--remove-after-in-synced-folder goes with --remove-after.")
        }
        guard [codeFile != nil, code != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give the code once: --code-file or --code.")
        }
    }

    func run() throws {
        let dropCode = try Self.code(file: codeFile, option: code, environment: ProcessInfo.processInfo.environment["OBSCURA_DROP_CODE"])
        let vault = global.vaultPath()
        guard FileManager.default.fileExists(atPath: vault + "/data") else {
            throw CLIError("\(vault) is not a vault directory")
        }
        try Self.refuseOverlap(vault: vault, sources: sources)
        var options = Watcher.Options(vault: vault, code: dropCode, sources: sources, state: Self.stateDirectory())
        options.existing = existing
        options.settle = settle
        // With the kernel's events, a full rescan each minute catches what they missed;
        // without them (--poll, or a system that gives none), scans are all there is.
        options.usesEvents = poll == nil
        options.interval = poll ?? Self.rescanSeconds
        options.inboxLimit = inboxLimit
        options.forgetAfterDays = forgetAfter
        options.forget = forget
        options.removeAfter = removeAfter
        options.removeInSyncedFolder = removeAfterInSyncedFolder
        options.verbose = global.verbose
        guard Watcher.takeOverStopSignals() else { throw CLIError("cannot set the watcher's signals") }
        let watcher: Watcher
        do {
            watcher = try Watcher(options: options, log: Terminal.note)
        } catch let error as WatchError {
            if case .sourceInUse = error { throw CLIError(error.description, exitCode: CLIError.inUseExitCode) }
            if case .syncedFolder = error { throw CLIError(error.description, exitCode: Self.usageExitCode) }
            throw CLIError(error.description)
        }
        let status = StatusLine(folders: sources.count, limit: inboxLimit)
        try watcher.run(stop: { Watcher.stopRequested }, status: status.show)
        status.end(watcher.tally)
    }

    /// The code from exactly one place: the code file (refused unless it is a regular file
    /// its owner only can read), the option, or the environment.
    static func code(file: String?, option: String?, environment: String?) throws -> DropCode {
        var text: String
        if let file {
            var st = stat()
            guard stat(file, &st) == 0 else { throw CLIError("cannot read the code file \(file): \(String(cString: strerror(errno)))", exitCode: usageExitCode) }
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw CLIError("the code file \(file) is not a regular file", exitCode: usageExitCode) }
            guard st.st_mode & 0o077 == 0 else {
                throw CLIError("the code file \(file) is readable by others; make it the owner's only: chmod 600 \(file)", exitCode: usageExitCode)
            }
            guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CLIError("cannot read the code file \(file)", exitCode: usageExitCode)
            }
            text = String(contents.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        } else if let option {
            text = option
        } else if let environment {
            text = environment
        } else {
            throw CLIError("give the vault's drop code: --code-file FILE, --code, or OBSCURA_DROP_CODE", exitCode: usageExitCode)
        }
        text = text.trimmingCharacters(in: .whitespaces)
        do {
            return try DropCode(text: text)
        } catch {
            throw CLIError("\(error): check it against the one in the vault's settings or 'obscura drop code'", exitCode: usageExitCode)
        }
    }

    /// Refuses a folder that is the vault directory, inside it, or holds it: the watcher
    /// would seal its own blobs, or the vault's files.
    static func refuseOverlap(vault: String, sources: [String]) throws {
        guard let vaultReal = WatchTree.realPath(vault) else {
            throw CLIError("cannot read \(vault): \(String(cString: strerror(errno)))")
        }
        for source in sources {
            guard let real = WatchTree.realPath(source) else {
                throw CLIError("cannot watch \(source): \(String(cString: strerror(errno)))")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIError("cannot watch \(source): not a folder")
            }
            let inside = real == vaultReal || real.hasPrefix(vaultReal + "/")
            let holds = vaultReal.hasPrefix(real == "/" ? "/" : real + "/")
            if inside || holds {
                throw CLIError("cannot watch \(source): it \(inside ? "is inside" : "holds") the vault directory", exitCode: usageExitCode)
            }
        }
    }

    /// `$XDG_STATE_HOME/obscura/watch`, by default `~/.local/state/obscura/watch`; on macOS
    /// `~/Library/Application Support/Obscura/watch` (PHONE.md §W2.5).
    static func stateDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        #if os(macOS)
        return NSHomeDirectory() + "/Library/Application Support/Obscura/watch"
        #else
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/obscura/watch" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/obscura/watch"
        #endif
    }

    /// The status of §W2.9: at a terminal one line rewritten at each scan; elsewhere
    /// (journald, a log file) a line a minute in which something was sealed.
    final class StatusLine {
        let folders: Int
        let limit: Int
        let terminal = isatty(2) == 1
        var lastLogged = Tally()
        var lastTime = Watcher.monotonic()

        typealias Tally = Watcher.Tally

        init(folders: Int, limit: Int) {
            self.folders = folders
            self.limit = limit
        }

        func text(_ tally: Tally) -> String {
            var parts = ["sealed \(tally.sealed) (\(String(format: "%.1f MB", Double(tally.sealedBytes) / 1e6)))"]
            if tally.known > 0 { parts.append("already sealed \(tally.known)") }
            if tally.removed > 0 { parts.append("removed \(tally.removed)") }
            parts.append("settling \(tally.settling)")
            if tally.refused > 0 { parts.append("refused \(tally.refused)") }
            parts.append("inbox \(tally.inbox)/\(limit)")
            return parts.joined(separator: " · ")
        }

        func show(_ tally: Tally) {
            if terminal {
                FileHandle.standardError.write(Data("\r\(folders == 1 ? "watching 1 folder" : "watching \(folders) folders") · \(text(tally))\u{1B}[K".utf8))
                return
            }
            let now = Watcher.monotonic()
            guard now - lastTime >= 60,
                  tally.sealed != lastLogged.sealed || tally.refused != lastLogged.refused || tally.removed != lastLogged.removed
            else { return }
            Terminal.note(text(tally))
            lastLogged = tally
            lastTime = now
        }

        func end(_ tally: Tally) {
            if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Terminal.note("stopped: " + text(tally))
        }
    }
}
