import Hummingbird
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `/api/password-strength` (docs/API.md, "Password strength"): the estimate the page
/// shows while a new password is typed, and the server's own check on every route that
/// takes a new password, so that a weak one is refused without the confirmation whatever
/// the page did. One estimator serves the CLI, the page and the checks.
struct PasswordStrengthRoutes {
    /// What the page shows: the class, the guesses, one GPU's time, the weakness.
    struct Answer: Encodable {
        var strength: String
        var label: String
        var needsConfirmation: Bool
        var log10Guesses: Double
        var seconds: Double
        var time: String
        var weakness: String?
        var kdf: String
        var guessesPerSecond: Double
        var summary: String

        init(_ assessment: PasswordAssessment) {
            strength = assessment.strength.name
            label = assessment.strength.label
            needsConfirmation = assessment.strength.needsConfirmation
            log10Guesses = (assessment.estimate.log10Guesses * 100).rounded() / 100
            seconds = assessment.seconds
            time = PasswordAssessment.duration(assessment.seconds)
            weakness = assessment.weaknessWorthSaying?.phrase
            kdf = assessment.cost.summary
            guessesPerSecond = assessment.guessesPerSecond.rounded()
            summary = assessment.summary
        }
    }

    /// The field a request sets to "true" to use a weak password anyway.
    static let confirmationField = "allowWeak"

    func register(on router: Router<GalleryContext>) {
        router.post("/api/password-strength") { request, context -> Response in
            let session = try context.requireSession()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            let vault = context.store?.unlockedVault(of: session)
            let cost = try Self.cost(fields.text("purpose") ?? "vault", vault: vault, directory: context.store?.directory)
            let assessment = try await Blocking.run { () -> PasswordAssessment in
                defer { password.zeroize() }
                return PasswordAssessment(password, cost: cost)
            }
            return try JSON.response(Answer(assessment))
        }
    }

    /// The key derivation a purpose's password will protect: the open vault's own (its
    /// password, folders and exports follow its suite), or, before a vault is open, what
    /// a new vault in `directory` takes (its decoys' KDF, Argon2id in a directory made
    /// with `--kdf argon2id`), so that the meter judges what the check will.
    static func cost(_ purpose: String, vault: Vault?, directory: VaultDirectory?) throws -> PasswordKDFCost {
        switch purpose {
        case "vault": PasswordKDFCost(vault?.kdf ?? newVaultKDF(directory))
        case "folder": vault.map { PasswordKDFCost($0.folderKDF) } ?? .folder
        case "export": vault.map { PasswordKDFCost($0.exportKDF) } ?? .export
        default: throw APIError.badRequest("purpose is vault, folder or export")
        }
    }

    /// The KDF a vault created now in `directory` takes (PBKDF2's default when none reads).
    static func newVaultKDF(_ directory: VaultDirectory?) -> KDFParameters {
        guard let directory, let shared = try? directory.sharedKDF() else { return .vault }
        return shared
    }

    /// Refuses `password` with 422 when it is weak against `cost` and `fields` lack
    /// `allowWeak: "true"`. Runs off the event loop; the password stays the caller's.
    static func requireAcceptable(_ password: SecureBytes, cost: PasswordKDFCost, fields: SecretFields) async throws {
        guard fields.text(confirmationField) != "true" else { return }
        let assessment = try await Blocking.run { PasswordAssessment(password, cost: cost) }
        guard !assessment.strength.needsConfirmation else {
            throw APIError(.unprocessableContent, "weak password: \(assessment.summary) Confirm to use it anyway.")
        }
    }
}
