import ObscuraCrypto

/// What the vault keeps of one enrolled credential, in catalog row i beside the wrap
/// key (docs/FORMAT.md §9.9): what an assertion is checked against after field i opens.
public struct PasskeyCredential: Sendable, Equatable {
    /// The largest credential id accepted (WebAuthn allows 1,023; the record holds 255).
    public static let maximumIDSize = 255
    /// Size of the user handle drawn at enrolment.
    public static let userHandleSize = 16

    /// The credential id, 1 … 255 bytes.
    public let id: [UInt8]
    /// The random user handle the server drew for this enrolment.
    public let userHandle: [UInt8]
    /// The credential's public key.
    public let key: SignatureKey
    /// Backup eligibility (flag BE), fixed at creation, from the signed enrolment assertion.
    public let backupEligible: Bool
    /// Backup state (flag BS) at enrolment, from the signed enrolment assertion: whether
    /// the passkey was synced (shown in the list, never relied on).
    public let backedUp: Bool

    /// A credential record.
    public init(id: [UInt8], userHandle: [UInt8], key: SignatureKey, backupEligible: Bool, backedUp: Bool = false) {
        self.id = id
        self.userHandle = userHandle
        self.key = key
        self.backupEligible = backupEligible
        self.backedUp = backedUp
    }
}
