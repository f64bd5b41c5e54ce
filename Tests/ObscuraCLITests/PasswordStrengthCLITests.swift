import Foundation
import Testing
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Issue 19 item 6: a password that creates something is estimated on standard error;
/// a weak one is refused without a terminal unless `--allow-weak-password` is given,
/// and needs a "y" at the terminal.
@Suite struct PasswordStrengthCLITests {
    static let strong = "glacier ribbon tundra vortex mango"

    @Test func aWeakVaultPasswordIsRefusedWithoutTheFlagAndNothingIsCreated() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let refused = try cli.run(["create", "--password-stdin"], stdin: "password1\n")
        #expect(refused.code == 1)
        #expect(refused.stderr.contains("Password strength: very weak. Found: a common password. One GPU would need"))
        // Judged against the KDF the new vault will take: the directory's decoys' (this
        // quick directory's 1,000 rounds; 600,000 in one `obscura init` made).
        #expect(refused.stderr.contains("PBKDF2-HMAC-SHA256, 1,000 iterations"), "\(refused.stderr)")
        #expect(refused.stderr.contains("obscura: error: the password is very weak;"))
        #expect(refused.stderr.contains("--allow-weak-password"))
        #expect(refused.stdout.isEmpty)
        #expect(try cli.run(["status", "--password-stdin"], stdin: "password1\n").code != 0)

        let allowed = try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "password1\n")
        #expect(allowed.code == 0)
        #expect(allowed.stdout == "Vault created.\n")
        #expect(allowed.stderr.contains("Password strength: very weak."))
    }

    @Test func aStrongPasswordNeedsNoFlag() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let created = try cli.run(["create", "--password-stdin"], stdin: Self.strong + "\n")
        #expect(created.code == 0)
        #expect(created.stderr.contains("Password strength: very strong."))
    }

    @Test func foldersExportsAndNewPasswordsAreCheckedAtTheirOwnCost() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: Self.strong)
        let pw = Self.strong + "\n"
        let folder = try cli.run(["folder", "create", "--protect", "--password-stdin", "Private"], stdin: pw + "19871203\n")
        #expect(folder.code == 1)
        #expect(folder.stderr.contains("Found: a date."))
        #expect(folder.stderr.contains("100,000 iterations"))
        #expect(try cli.run(["folder", "create", "--protect", "--password-stdin", "--allow-weak-password", "Private"],
                            stdin: pw + "19871203\n").code == 0)
        // An unprotected folder has no password to judge.
        let plain = try cli.run(["folder", "create", "--password-stdin", "Open"], stdin: pw)
        #expect(plain.code == 0 && !plain.stderr.contains("Password strength"))

        let export = try cli.run(["export", "--password-stdin", "-o", cli.root + "/v.obscura"], stdin: pw + "qwertyuiop\n")
        #expect(export.code == 1)
        #expect(export.stderr.contains("Found: a common password.") || export.stderr.contains("Found: a keyboard pattern."))
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/v.obscura"))
        // Shaped like a generated password, it is canonicalised before the KDF (upper case,
        // no dashes: DRAGONMONKEYSHADOWAB), and judged in that form, weak words and all.
        let shaped = try cli.run(["export", "--password-stdin", "-o", cli.root + "/v.obscura"], stdin: pw + "dragon-Monkey-Shadow-ab\n")
        #expect(shaped.code == 1, "\(shaped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.root + "/v.obscura"))

        let passwd = try cli.run(["passwd", "--password-stdin"], stdin: pw + "Tr0ub4dor&3\n")
        #expect(passwd.code == 1)
        #expect(passwd.stderr.contains("Found: an English word."))
        #expect(try cli.run(["status", "--password-stdin"], stdin: pw).code == 0)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func atTheTerminalAWeakPasswordNeedsAYes() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let declined = try Self.atTerminal(cli, ["create"], [
            ("New vault password: ", "letmein\n"), ("Repeat it: ", "letmein\n"), ("Use it anyway? [y/N] ", "n\n"),
        ])
        #expect(declined.output.contains("Password strength: very weak."))
        #expect(declined.output.contains("cancelled; choose a stronger password"))
        #expect(!declined.output.contains("Vault created."))

        let accepted = try Self.atTerminal(cli, ["create"], [
            ("New vault password: ", "letmein\n"), ("Repeat it: ", "letmein\n"), ("Use it anyway? [y/N] ", "y\n"),
        ])
        #expect(accepted.output.contains("Vault created."), "\(accepted.output)")
        #expect(try cli.run(["status", "--password-stdin"], stdin: "letmein\n").code == 0)
    }

    /// Runs the command on a pseudo-terminal (script(1)), answering each prompt as it
    /// appears: the CLI reads passwords and answers from /dev/tty, flushing input typed ahead.
    static func atTerminal(_ cli: CLIRunner, _ args: [String], _ steps: [(prompt: String, answer: String)]) throws
        -> (code: Int32, output: String) {
        let binary = CLIRunner.productsDirectory.appendingPathComponent("obscura").path
        let command = ([binary, "--vault", cli.vault] + args).map { "'" + $0 + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = cli.processEnvironment()
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = ""
        let fd = output.fileHandleForReading.fileDescriptor
        // Generous: a loaded CI machine runs this beside hundreds of other tests.
        let deadline = Date().addingTimeInterval(120)
        for step in steps {
            while !seen.contains(step.prompt), Date() < deadline {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 200) > 0 else { continue }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            seen = seen.replacingOccurrences(of: step.prompt, with: "[" + step.prompt + "]")
            input.fileHandleForWriting.write(Data(step.answer.utf8))
        }
        try? input.fileHandleForWriting.close()
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, seen)
    }
}
