import Foundation
import ObscuraCrypto
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Terminal and standard-stream input and output. Passwords are read as bytes into
/// ``SecureBytes`` and never become a `String`. Every message goes out through
/// ``TerminalText/escaped(_:keepingNewlines:)``, so a name or path in it cannot drive the
/// terminal; commands print with ``output(_:)``, never with `print`.
enum Terminal {
    /// Writes "obscura: error: message" to standard error.
    static func printError(_ message: String, prefix: Bool = true) {
        note((prefix ? "obscura: error: " : "") + message)
    }

    /// Writes `message` and a newline to standard error (warnings, progress).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(message, keepingNewlines: true) + "\n").utf8))
    }

    /// Writes `message` and a newline to standard output (results, listings, JSON).
    static func output(_ message: String) {
        print(TerminalText.escaped(message, keepingNewlines: true))
    }

    /// Whether standard input is a terminal.
    static var stdinIsTerminal: Bool { isatty(0) == 1 }

    /// Whether a person can both read what is shown and answer: standard input and
    /// output are both terminals.
    static var isInteractive: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// Reads one line of standard input, byte by byte so that nothing past the newline is
    /// consumed. Returns nil at end of input with nothing read. The line collects in a
    /// ``SecureBuffer``, which zeroes what it outgrows: a password of any length leaves
    /// no copy in freed memory.
    static func readLine(fd: Int32 = 0) -> SecureBytes? {
        let buffer = SecureBuffer()
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            sawAny = true
            if byte == UInt8(ascii: "\n") { break }
            buffer.append(byte)
        }
        byte = 0
        guard sawAny else { return nil }
        if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
        return buffer.take()
    }

    /// Prompts on the controlling terminal and reads a line with echo turned off.
    static func readSecret(prompt: String) throws -> SecureBytes {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError("no terminal to read a password from; pass --password-stdin")
        }
        defer { close(fd) }
        // Echo off (and what was typed before it flushed) before the prompt shows: what is
        // typed once the prompt is there, however fast (a password manager typing it), is
        // neither echoed nor thrown away.
        var saved = termios()
        tcgetattr(fd, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        _ = TerminalText.escaped(prompt, keepingNewlines: true).withCString { write(fd, $0, strlen($0)) }
        guard let line = readLine(fd: fd) else { throw CLIError("no password entered") }
        return line
    }

    /// Asks a yes/no style question on the terminal; true only for the exact `answer`.
    static func confirm(prompt: String, answer: String) -> Bool {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        _ = TerminalText.escaped(prompt, keepingNewlines: true).withCString { write(fd, $0, strlen($0)) }
        guard let line = readLine(fd: fd) else { return false }
        return line.withUnsafeBytes { Array($0) } == Array(answer.utf8)
    }
}

extension Terminal {
    /// Says that a key was read from a plain file (docs/FORMAT.md §4.3), once per command
    /// and key when a person is watching standard error: a command that reads the key
    /// several times (`init` read the decoy secret three times) says it once. Scripts
    /// and services are not told at every command: `init`, `migrate` and `serve` say it
    /// `always`, whatever standard error is, and `status` shows where keys live.
    static func keyFileWarning(_ warning: String, always: Bool = false) {
        if always || isatty(2) == 1, givenKeyFileWarnings.firstTime(warning) { note(warning) }
    }

    /// The key-file warnings this process has given.
    private static let givenKeyFileWarnings = OnceSet()

    /// Writes `indent`, the secret bytes and a newline to standard output straight from
    /// the zeroing buffer: a key's text never becomes a `String`.
    static func writeSecretLine(_ secret: SecureBytes, indent: String = "") {
        // After what `output` printed before it, which sits in stdio's buffer.
        fflush(nil)
        let line = SecureBuffer(capacity: indent.utf8.count + secret.count + 1)
        for byte in indent.utf8 { line.append(byte) }
        secret.withUnsafeBytes { for byte in $0 { line.append(byte) } }
        line.append(UInt8(ascii: "\n"))
        let bytes = line.take()
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(1, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
    }

    /// Clears the terminal screen and its scrollback, so that a key just shown is not
    /// left on it while the user types part of it back.
    static func clearScreen() {
        guard isatty(1) == 1 else { return }
        FileHandle.standardOutput.write(Data("\u{1B}[H\u{1B}[2J\u{1B}[3J".utf8))
    }
}

/// Texts seen once, from any thread.
final class OnceSet: @unchecked Sendable {
    // @unchecked: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen: Set<String> = []

    /// Whether `text` is new here; it is remembered either way.
    func firstTime(_ text: String) -> Bool { lock.withLock { seen.insert(text).inserted } }
}
