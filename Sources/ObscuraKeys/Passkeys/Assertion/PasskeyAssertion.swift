import ObscuraCrypto

/// An assertion as the page sends it after `navigator.credentials.get`, each field the
/// bytes the browser gave (docs/API.md; the page never rebuilds `clientDataJSON`).
public struct PasskeyAssertion: Sendable {
    /// `rawId`: the credential that answered.
    public let credentialID: [UInt8]
    /// `response.authenticatorData`.
    public let authenticatorData: [UInt8]
    /// `response.clientDataJSON`, exactly as received: the signature covers its hash.
    public let clientDataJSON: [UInt8]
    /// `response.signature`: DER for ES256, 64 bytes for Ed25519.
    public let signature: [UInt8]
    /// `response.userHandle`, when the authenticator returned one.
    public let userHandle: [UInt8]?

    /// An assertion from its fields.
    public init(credentialID: [UInt8], authenticatorData: [UInt8], clientDataJSON: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
        self.signature = signature
        self.userHandle = userHandle
    }

    /// Whether this assertion passes every check of docs/FORMAT.md §9.9 (V1–V13) for
    /// `credential` (row i, nil when the row is free), the session's outstanding get
    /// `challenge` (taken and cleared by the caller; nil when there was none) and `party`.
    ///
    /// Every check runs, whichever fails, and the result is one boolean: the time and the
    /// answer do not depend on which check failed. Only the signature check is skipped
    /// when there is no row, since there is no key to check with.
    public func verify(against credential: PasskeyCredential?, challenge: [UInt8]?, party: RelyingParty) -> Bool {
        steps(against: credential, challenge: challenge, party: party).allSatisfy(\.passed)
    }

    /// The checks V1–V13 in order, each with its outcome (the tests name the one that fails).
    package func steps(against credential: PasskeyCredential?, challenge: [UInt8]?, party: RelyingParty) -> [(step: String, passed: Bool)] {
        let client = ClientData.parse(clientDataJSON)
        let data = AuthenticatorData(authenticatorData)
        let flags = data?.flags ?? []
        // Both ids are compared over the record's full width, so the time does not depend
        // on their lengths; each is clamped to it (a record never holds more, but a bad
        // one must not trap).
        let storedID = credential?.id ?? []
        func padded(_ id: [UInt8]) -> [UInt8] {
            let kept = id.prefix(PasskeyCredential.maximumIDSize + 1)
            return Array(kept) + [UInt8](repeating: 0, count: PasskeyCredential.maximumIDSize + 1 - kept.count)
        }
        let paddedStored = padded(storedID), paddedSent = padded(credentialID)
        let expectedChallenge = challenge.map(Base64URL.encode) ?? []
        let sentChallenge = client.map { Array($0.challenge.utf8) } ?? []
        let hasExtensions = flags.contains(.extensionData)
        let length = authenticatorData.count
        let message = authenticatorData + SHA256Digest.hash(clientDataJSON)
        let signed = credential.map { $0.key.isValidSignature(signature, for: message) } ?? false
        return [
            ("V1", credential != nil),
            ("V2", ConstantTime.equals(paddedStored, paddedSent) && credentialID.count == storedID.count
                && storedID.count <= PasskeyCredential.maximumIDSize && credential != nil),
            ("V3", userHandle.map { ConstantTime.equals($0, credential?.userHandle ?? []) } ?? true),
            ("V4", client != nil),
            ("V5", client?.type == "webauthn.get"),
            ("V6", challenge != nil && ConstantTime.equals(sentChallenge, expectedChallenge)),
            ("V7", client.map { Array($0.origin.utf8) == Array(party.origin.utf8) } ?? false),
            ("V8", client.map { $0.crossOrigin != true && $0.topOrigin == nil } ?? false),
            ("V9", data.map { ConstantTime.equals($0.rpIDHash, party.idHash) } ?? false),
            ("V10", data != nil && flags.contains(.userPresent) && flags.contains(.userVerified) && !flags.contains(.attestedData)
                && (data?.flagsConsistent ?? false) && flags.contains(.backupEligible) == (credential?.backupEligible ?? false)),
            ("V11", length >= AuthenticatorData.fixedSize && length <= AuthenticatorData.maximumSize
                && (hasExtensions ? length > AuthenticatorData.fixedSize : length == AuthenticatorData.fixedSize)),
            ("V12", true),  // M = authenticatorData ‖ SHA-256(clientDataJSON), built above
            ("V13", signed),
        ]
    }

    /// The flags of the authenticator data, for enrolment's signed BE and BS (PK19).
    var flags: AuthenticatorData.Flags { AuthenticatorData(authenticatorData)?.flags ?? [] }
}
