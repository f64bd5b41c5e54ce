import ArgumentParser
import ObscuraCrypto

/// Where passwords come from: the terminal (no echo), or one line of standard input per
/// password with `--password-stdin`, in the order the command would prompt.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .long, help: "Read each password as one line of standard input, in prompt order.")
    var passwordStdin = false

    /// Reads an existing password.
    func existing(_ prompt: String = "Vault password: ") throws -> SecureBytes {
        try nonEmpty(passwordStdin ? stdinLine() : Terminal.readSecret(prompt: prompt))
    }

    /// Reads a new password; on a terminal it is asked twice and must match.
    func new(_ prompt: String = "New vault password: ") throws -> SecureBytes {
        if passwordStdin { return try nonEmpty(stdinLine()) }
        let first = try nonEmpty(Terminal.readSecret(prompt: prompt))
        let again = try Terminal.readSecret(prompt: "Repeat it: ")
        guard first == again else { throw CLIError("the passwords do not match") }
        return first
    }

    private func stdinLine() throws -> SecureBytes {
        guard let line = Terminal.readLine() else {
            throw CLIError("expected a password line on standard input")
        }
        return line
    }

    private func nonEmpty(_ password: SecureBytes) throws -> SecureBytes {
        guard password.count > 0 else { throw CLIError("the password is empty") }
        return password
    }
}
