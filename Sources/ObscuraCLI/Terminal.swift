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
        _ = TerminalText.escaped(prompt, keepingNewlines: true).withCString { write(fd, $0, strlen($0)) }
        var saved = termios()
        tcgetattr(fd, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
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
