import Foundation
import ObscuraCrypto
import ObscuraImaging

/// One repository as restic reaches it: runs the `restic` program with the repository's
/// arguments, hands it the password on standard input (never in an argument, the
/// environment or a file), and turns what it says into ``BackupError``s.
///
/// restic reads the password as one line of standard input when that is not a terminal.
/// Its `RESTIC_PASSWORD*` and `RESTIC_REPOSITORY*` variables are removed from its
/// environment, so that nothing but this type's arguments chooses the repository and the
/// key; the rest of the environment (ssh's agent, rclone's and the cloud tools'
/// credentials, `XDG_CACHE_HOME` for restic's cache of sealed metadata) passes through.
struct Restic: Sendable {
    let repository: BackupRepository
    let password: SecureBytes
    /// How long restic may keep retrying a repository that does not answer, with no
    /// progress between, before it is stopped (restic's own retries last minutes).
    var giveUpSeconds: Double = 120
    /// The program; `restic` on PATH.
    var executable = "restic"

    /// What a finished restic run said.
    struct Output {
        let status: Int32
        let stdout: [UInt8]
        /// The end of standard error (at most ``stderrLimit`` bytes).
        let stderr: String
        /// The `--json` error lines restic printed on standard error (restic 0.14 prints
        /// its `error` messages there, not on standard output), at most ``errorLimit``.
        var errorMessages: [String] = []
    }

    /// The most bytes of standard error kept for messages.
    static let stderrLimit = 32 * 1024
    /// The most `error` lines kept.
    static let errorLimit = 1000
    /// The variables never passed to restic.
    static let withheld = ["RESTIC_PASSWORD", "RESTIC_PASSWORD_FILE", "RESTIC_PASSWORD_COMMAND",
                           "RESTIC_REPOSITORY", "RESTIC_REPOSITORY_FILE", "RESTIC_KEY_HINT"]

    /// Runs `restic -r REPO [-o ...] arguments`, feeding each line restic prints on
    /// standard output to `line` as it comes (when given; else it is returned whole).
    ///
    /// - Throws: ``BackupError/resticMissing``, ``BackupError/cancelled`` when `cancel`
    ///   fired, and ``BackupError/unreachable(repository:detail:)`` when restic kept
    ///   retrying for ``giveUpSeconds``. A non-zero exit is returned, not thrown:
    ///   ``check(_:_:)`` classifies it.
    func run(
        _ arguments: [String], workingDirectory: String? = nil, cancel: BackupCancellation? = nil,
        line: ((String) -> Void)? = nil
    ) throws -> Output {
        guard let path = ExternalTool.locate(executable) else { throw BackupError.resticMissing }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = repository.arguments + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in Self.withheld { environment[name] = nil }
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        Self.ignoreBrokenPipes
        try process.run()

        // The password and a newline, straight from its zeroing buffer; 21 bytes fit the
        // pipe, so the write never waits on restic.
        let stdin = input.fileHandleForWriting.fileDescriptor
        password.withUnsafeBytes { _ = write(stdin, $0.baseAddress!, $0.count) }
        _ = write(stdin, "\n", 1)
        try? input.fileHandleForWriting.close()

        let watch = RetryWatch()
        let collected = Collected()
        let background = DispatchGroup()
        DispatchQueue.global().async(group: background) {
            Self.readLines(errors.fileHandleForReading.fileDescriptor) { text in
                watch.sawError(text)
                collected.appendErr(text)
                if text.hasPrefix("{\"message_type\":\"error\"") { collected.appendErrorMessage(text) }
            }
        }
        // The watchdog: stops restic when the run is cancelled or the repository stopped
        // answering. restic's clean-up then retries removing its lock from a repository
        // that is gone for minutes: it gets a few seconds, then is killed. The lock it
        // leaves is stale (its process is gone) and the next run removes it.
        let pid = process.processIdentifier
        let giveUp = giveUpSeconds, shownRepository = repository.shown
        DispatchQueue.global().async(group: background) {
            while exited.wait(timeout: .now() + 0.25) == .timedOut {
                guard !watch.isStopped else { continue }
                if cancel?.isCancelled == true {
                    watch.stop(.cancelled)
                } else if let detail = watch.gaveUp(after: giveUp) {
                    watch.stop(.unreachable(repository: shownRepository, detail: detail))
                } else {
                    continue
                }
                kill(pid, SIGINT)
                if exited.wait(timeout: .now() + 3) == .timedOut { kill(pid, SIGKILL) } else { return }
            }
        }
        Self.readLines(output.fileHandleForReading.fileDescriptor) { text in
            // restic says this on standard output, before any JSON.
            if text.hasPrefix("reading repository password from stdin") { return }
            watch.sawOutput(text)
            if let line { line(text) } else { collected.appendOut(text) }
        }
        process.waitUntilExit()
        exited.signal()
        background.wait()
        if let stopped = watch.stopped { throw stopped.shown(replacing: repository.location, with: repository.shown) }
        return Output(status: process.terminationStatus, stdout: collected.out, stderr: collected.err, errorMessages: collected.errorMessages)
    }

    /// Throws the error a failed run stands for; does nothing for exit 0.
    func check(_ output: Output, _ command: String) throws {
        guard output.status != 0 else { return }
        throw classify(output.stderr, command)
    }

    /// The error restic's standard error describes.
    func classify(_ stderr: String, _ command: String) -> BackupError {
        let lower = stderr.lowercased()
        let lines = stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("reading repository password") }
        let fatal = lines.last { $0.hasPrefix("Fatal:") } ?? lines.last ?? "no message"
        if lower.contains("wrong password or no key found") { return .wrongPassword }
        if lower.contains("no space left on device") || lower.contains("disk quota exceeded") {
            return .repositoryFull(shown(fatal))
        }
        if lower.contains("repository is already locked") {
            return .repositoryLocked(shown(lines.last { $0.contains("already locked") } ?? fatal))
        }
        // Before "is there a repository": restic asks that too when the server did not answer.
        let network = ["connection refused", "no such host", "i/o timeout", "network is unreachable", "connection reset",
                       "unable to start the sftp session", "ssh command exited", "connection closed", "unexpected eof", "broken pipe"]
        if network.contains(where: lower.contains) { return .unreachable(repository: repository.shown, detail: shown(fatal)) }
        if lower.contains("is there a repository at the following location") { return .noRepository(repository.shown) }
        // restic 0.14 can crash on a failed write (a nil dereference in its archiver) and
        // then never says why: a local repository with no room for another pack was full.
        let panic = lines.first { $0.hasPrefix("panic: ") }
        if let free = localFreeBytes(), free < Self.packRoom {
            return .repositoryFull("\(free) bytes free where it lives; restic stopped: \(shown(panic ?? fatal))")
        }
        if let panic { return .resticFailed(command: command, detail: "restic crashed: " + shown(panic)) }
        return .resticFailed(command: command, detail: shown(lines.suffix(3).joined(separator: "; ")))
    }

    /// Room for one more pack restic writes (its default pack size, 16 MiB).
    static let packRoom: Int64 = 16 << 20

    /// The bytes free to this user on the file system of a local repository (or of its
    /// nearest existing folder); nil for a remote one.
    func localFreeBytes() -> Int64? {
        var path = repository.location
        if path.hasPrefix("local:") {
            path.removeFirst("local:".count)
        } else if !BackupRepository.isLocalPath(path) {
            return nil
        }
        var info = statvfs()
        while statvfs(path, &info) != 0 {
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { return nil }
            path = parent
        }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// `text` with the repository location replaced by its shown form (no password).
    private func shown(_ text: String) -> String {
        let whole = text.replacingOccurrences(of: repository.location, with: repository.shown)
        guard let bare = repository.withoutBackend else { return whole }
        return whole.replacingOccurrences(of: bare, with: BackupRepository.masked(bare))
    }

    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Reads `fd` to its end, calling `line` with each line (without its newline).
    static func readLines(_ fd: Int32, _ line: (String) -> Void) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                line(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
    }
}

/// Lets another thread stop a running backup, restore or check.
public final class BackupCancellation: @unchecked Sendable {
    // @unchecked: `cancelled` is read and written under `lock`.
    private let lock = NSLock()
    private var cancelled = false

    /// A token not yet cancelled.
    public init() {}

    /// Stops the run: restic is interrupted, and the run throws ``BackupError/cancelled``.
    public func cancel() { lock.withLock { cancelled = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// A token that Ctrl-C (SIGINT) cancels, for a command line run: restic is stopped
    /// and the run cleans up (a restore removes what it wrote) before the process ends.
    public static func onInterrupt() -> BackupCancellation {
        let token = BackupCancellation()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { token.cancel() }
        source.resume()
        token.interruptSource = source
        return token
    }

    /// Kept alive with the token.
    private var interruptSource: (any DispatchSourceSignal)?
}

/// Watches restic's output for a repository that stopped answering: restic says
/// "returned error, retrying after ..." for each failed request, and goes on for minutes.
private final class RetryWatch: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var firstRetry: Date?
    private var lastRetryText = ""
    private var lastBytesDone: Int64 = -1
    private var reason: BackupError?

    /// Why the run was stopped, once it was.
    var stopped: BackupError? { lock.withLock { reason } }
    var isStopped: Bool { stopped != nil }

    func stop(_ why: BackupError) { lock.withLock { reason = why } }

    func sawError(_ text: String) {
        guard text.contains("retrying after") else { return }
        lock.withLock {
            if firstRetry == nil { firstRetry = Date() }
            lastRetryText = text
        }
    }

    /// A status line whose `bytes_done` grew shows that restic is getting on: the retry
    /// clock starts again.
    func sawOutput(_ text: String) {
        guard text.hasPrefix("{\"message_type\":\"status\""),
              let status = try? JSONDecoder().decode(ResticStatus.self, from: Data(text.utf8)),
              let done = status.bytesDone
        else { return }
        lock.withLock {
            if done > lastBytesDone {
                lastBytesDone = done
                firstRetry = nil
            }
        }
    }

    /// restic's last retry message, once it has been retrying for `seconds` without progress.
    func gaveUp(after seconds: Double) -> String? {
        lock.withLock {
            guard let firstRetry, Date().timeIntervalSince(firstRetry) > seconds else { return nil }
            return lastRetryText
        }
    }
}

/// Lines restic printed, kept for a run that returns them whole.
private final class Collected: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`, and read after the readers finished.
    private let lock = NSLock()
    private var outBytes = [UInt8]()
    private var errText = ""
    private var errorLines = [String]()

    func appendOut(_ text: String) { lock.withLock { outBytes += Array(text.utf8) + [0x0A] } }

    func appendErr(_ text: String) {
        lock.withLock {
            errText += text + "\n"
            if errText.utf8.count > Restic.stderrLimit { errText = String(errText.suffix(Restic.stderrLimit / 2)) }
        }
    }

    func appendErrorMessage(_ text: String) {
        lock.withLock { if errorLines.count < Restic.errorLimit { errorLines.append(text) } }
    }

    var out: [UInt8] { lock.withLock { outBytes } }
    var errorMessages: [String] { lock.withLock { errorLines } }
    var err: String { lock.withLock { errText } }
}

extension BackupError {
    /// This error with `location` replaced by `shown` in the text restic gave it.
    func shown(replacing location: String, with shown: String) -> BackupError {
        guard case let .unreachable(repository, detail) = self else { return self }
        return .unreachable(repository: repository, detail: detail.replacingOccurrences(of: location, with: shown))
    }
}
