import ArgumentParser
import ObscuraCrypto
import ObscuraKit

/// `--kdf pbkdf2|argon2id`: the password KDF of what a command makes (docs/FORMAT.md §2).
struct KDFOption: ParsableArguments {
    /// The KDFs a user can name.
    enum Name: String, ExpressibleByArgument, CaseIterable {
        case pbkdf2
        case argon2id
    }

    @Option(name: .long, help: ArgumentHelp(
        "Password KDF: pbkdf2 (PBKDF2-HMAC-SHA256, the default) or argon2id (64 MiB, 3 passes, 4 lanes).",
        valueName: "kdf"))
    var kdf: Name?

    /// The KDF chosen for a vault's directory: every slot shares it.
    var forVaults: KDFParameters { kdf == .argon2id ? .argon2id : .vault }

    /// The KDF of a new protected folder of `vault`: the one named, else the vault's
    /// own kind (``Vault/folderKDF``).
    func forFolder(of vault: Vault) -> KDFParameters {
        switch kdf {
        case nil: vault.folderKDF
        case .argon2id: .argon2id
        case .pbkdf2: .folder
        }
    }

    /// As ``forFolder(of:)``, for an export.
    func forExport(of vault: Vault) -> KDFParameters {
        switch kdf {
        case nil: vault.exportKDF
        case .argon2id: .argon2id
        case .pbkdf2: .export
        }
    }

    /// Refuses a `--kdf` other than the one the directory's slots share: a vault of
    /// another KDF would stand out among them (docs/FORMAT.md §4.1).
    func requireMatching(_ directory: VaultDirectory) throws {
        guard let kdf, let shared = try directory.sharedKDF(), shared.suite != forVaults.suite else { return }
        throw CLIError("""
            this directory's slots use \(shared.description); every vault of a directory shares one KDF, \
            chosen by `obscura init --kdf` (leave out --kdf, or make a new directory)
            """)
    }
}

/// `--test-kdf-iterations N` (hidden): a new directory's slots with PBKDF2 at `N`
/// iterations instead of the production default, so that test suites that are not about
/// the KDF (the browser suite's servers, the CLI tests) do not spend minutes deriving
/// keys; every vault later made in that directory takes the same cost. Never for real
/// vaults: the command says so when it is used.
struct TestKDFOption: ParsableArguments {
    @Option(name: .customLong("test-kdf-iterations"), help: .hidden)
    var iterations: Int?

    func validate() throws {
        if let iterations, iterations < 1 { throw ValidationError("--test-kdf-iterations must be positive") }
    }

    /// The test cost, with the note that goes with it; nil when the option is absent.
    func parameters() -> KDFParameters? {
        guard let iterations else { return nil }
        Terminal.note("note: --test-kdf-iterations: vaults in this directory derive their keys with \(iterations) PBKDF2 iterations; for tests only")
        return .pbkdf2(iterations: iterations)
    }
}
