import Foundation
import ObscuraCrypto
import ObscuraKeys
import ObscuraKit

/// Passkey unlock, enrolment and removal under the session rules (docs/PASSKEY.md §P4.2,
/// §P4.5): one progressive delay for passwords and passkeys alike, every refusal of a
/// passkey unlock answered as a wrong password, and a password behind every change.
extension SessionStore {
    /// Unlocks for `session` the vault whose passkey field `prf` opens, once `assertion`
    /// verifies against that field's credential, `challenge` (the session's outstanding
    /// get challenge, taken already) and `party`. Blocking.
    @discardableResult
    func unlock(
        _ session: Session, passkey prf: SecureBytes, assertion: PasskeyAssertion, challenge: [UInt8]?, party: RelyingParty
    ) throws -> DropIntake {
        try unlock(session) {
            try directory.unlock(passkeyPRF: prf, runningChores: false) { credential in
                assertion.verify(against: credential, challenge: challenge, party: party)
            }
        }
    }

    /// Enrols a verified credential in `vault` (docs/PASSKEY.md §P4.1 step 6): a wrong
    /// password is a failure of the delay, and so is a PRF output that already opens a
    /// vault (whether it does is what a guess would want to learn, PK7).
    func enrolPasskey(
        in vault: Vault, password: SecureBytes, name: String, prf: SecureBytes, tag: String?,
        credential: () throws -> PasskeyCredential
    ) throws -> PasskeyInfo {
        try guarded {
            try requirePassword(password, of: vault)
            // The checks of the ceremony come after the password, as the design orders them.
            let verified = try credential()
            do {
                return try vault.enrolPasskey(name: name, password: password, prf: prf, credential: verified, tag: tag, now: time)
            } catch VaultError.passkeyOpensAVault {
                throttle.recordFailure()
                throw APIError(VaultError.passkeyOpensAVault).waiting(throttle.wait())
            }
        }
    }

    /// Checks an enrolment's password, name and room before the ceremony (review UX4); a
    /// wrong password is a failure of the delay, as at the enrolment itself.
    func checkEnrolment(in vault: Vault, password: SecureBytes, name: String) throws {
        try guarded {
            // One key derivation: the vault's check is the password check (review N5).
            do {
                try vault.checkEnrolment(name: name, password: password)
            } catch VaultError.wrongPassword {
                throttle.recordFailure()
                throw APIError(.unauthorized, "wrong password").waiting(throttle.wait())
            }
        }
    }

    /// Removes the passkey `name` of `vault` and returns its credential id; a wrong
    /// password is a failure of the delay.
    func removePasskey(of vault: Vault, password: SecureBytes, name: String) throws -> [UInt8] {
        try guarded {
            try requirePassword(password, of: vault)
            return try vault.removePasskey(named: name, password: password)
        }
    }

    /// Throws 401 "wrong password", recording a failure, unless `password` is `vault`'s.
    private func requirePassword(_ password: SecureBytes, of vault: Vault) throws {
        guard try vault.checkPassword(password) else {
            throttle.recordFailure()
            throw APIError(.unauthorized, "wrong password").waiting(throttle.wait())
        }
    }
}
