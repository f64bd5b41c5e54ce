import ObscuraCrypto

/// A new credential as the page sends it after `navigator.credentials.create`: the
/// client data, and what `getAuthenticatorData()`, `getPublicKey()` and
/// `getPublicKeyAlgorithm()` returned, so that the server reads no CBOR (docs/FORMAT.md
/// §9.9, "Enrolment").
public struct PasskeyRegistration: Sendable {
    /// `rawId`.
    public let credentialID: [UInt8]
    /// `response.clientDataJSON`.
    public let clientDataJSON: [UInt8]
    /// `response.getAuthenticatorData()`.
    public let authenticatorData: [UInt8]
    /// `response.getPublicKey()`: a DER SubjectPublicKeyInfo.
    public let publicKey: [UInt8]
    /// `response.getPublicKeyAlgorithm()`: a COSE algorithm number.
    public let algorithm: Int

    /// A registration from its fields.
    public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], publicKey: [UInt8], algorithm: Int) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.publicKey = publicKey
        self.algorithm = algorithm
    }

    /// COSE ES256 and the exact SPKI prefix of an uncompressed P-256 key
    /// (id-ecPublicKey, prime256v1) up to the point's 04, followed by x ‖ y.
    static let es256 = -7
    static let p256Prefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ]
    /// COSE EdDSA (Ed25519) and the exact SPKI prefix of an Ed25519 key, followed by its 32 bytes.
    static let eddsa = -8
    static let ed25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// Checks E1–E5 of docs/FORMAT.md §9.9 in order and returns the record to keep: the
    /// creation (its client data against the outstanding create challenge, its
    /// authenticator data at fixed offsets, its key), then `assertion`, the `get()`
    /// restricted to the new credential, against V2–V13. BE and BS are taken from that
    /// signed assertion and must equal the creation's (PK19).
    ///
    /// - Throws: ``PasskeyEnrolError``; the first check that fails decides which.
    public func verify(
        assertion: PasskeyAssertion, createChallenge: [UInt8]?, getChallenge: [UInt8]?,
        userHandle: [UInt8], party: RelyingParty
    ) throws -> PasskeyCredential {
        switch check(assertion: assertion, createChallenge: createChallenge, getChallenge: getChallenge,
                     userHandle: userHandle, party: party) {
        case .success(let credential): return credential
        case .failure(let refusal): throw refusal.error
        }
    }

    /// Why a registration was refused: the step (`E1`, `E3`, `E4`, `E5`, `PK19`) and the error.
    package struct Refusal: Error {
        package let step: String
        package let error: PasskeyEnrolError
    }

    /// ``verify(assertion:createChallenge:getChallenge:userHandle:party:)`` naming the step
    /// that refused (the tests hold each step to the vector made for it).
    package func check(
        assertion: PasskeyAssertion, createChallenge: [UInt8]?, getChallenge: [UInt8]?,
        userHandle: [UInt8], party: RelyingParty
    ) -> Result<PasskeyCredential, Refusal> {
        func refuse(_ step: String, _ error: PasskeyEnrolError = .notVerified) -> Result<PasskeyCredential, Refusal> {
            .failure(Refusal(step: step, error: error))
        }
        // E1: the creation's client data.
        guard let client = ClientData.parse(clientDataJSON), client.type == "webauthn.create",
              let createChallenge, ConstantTime.equals(Array(client.challenge.utf8), Base64URL.encode(createChallenge)),
              Array(client.origin.utf8) == Array(party.origin.utf8), client.crossOrigin != true, client.topOrigin == nil
        else { return refuse("E1") }
        // E3: the creation's authenticator data, fixed offsets only.
        guard let data = AuthenticatorData(authenticatorData), ConstantTime.equals(data.rpIDHash, party.idHash),
              data.flags.isSuperset(of: [.userPresent, .userVerified, .attestedData]), data.flagsConsistent
        else { return refuse("E3") }
        let (id, tooLong) = data.credentialID()
        if tooLong { return refuse("E3", .credentialIDTooLong) }
        guard let id, id == credentialID else { return refuse("E3") }
        // E4: the key, from its SubjectPublicKeyInfo.
        guard let key = Self.key(spki: publicKey, algorithm: algorithm) else { return refuse("E4", .unsupportedKey) }
        // E5: the restricted get(), signed by that key, against a provisional record.
        let provisional = PasskeyCredential(
            id: id, userHandle: userHandle, key: key, backupEligible: data.flags.contains(.backupEligible))
        guard assertion.verify(against: provisional, challenge: getChallenge, party: party) else { return refuse("E5") }
        // PK19: the record's flags come from the signed assertion, and must agree with the creation's.
        let signed = assertion.flags
        guard signed.contains(.backedUp) == data.flags.contains(.backedUp) else { return refuse("PK19") }
        return .success(PasskeyCredential(
            id: id, userHandle: userHandle, key: key,
            backupEligible: signed.contains(.backupEligible), backedUp: signed.contains(.backedUp)))
    }

    /// The key of an SPKI with exactly one of the two accepted prefixes and the algorithm
    /// that goes with it; nil for anything else (RSA, P-384, a compressed point, trailing
    /// bytes, a point off the curve, a small-order Ed25519 key).
    static func key(spki: [UInt8], algorithm: Int) -> SignatureKey? {
        switch algorithm {
        case es256:
            guard spki.count == p256Prefix.count + 64, spki.starts(with: p256Prefix) else { return nil }
            return SignatureKey.p256(point: [0x04] + spki[p256Prefix.count...])
        case eddsa:
            guard spki.count == ed25519Prefix.count + 32, spki.starts(with: ed25519Prefix) else { return nil }
            return SignatureKey.ed25519(publicKey: Array(spki[ed25519Prefix.count...]))
        default:
            return nil
        }
    }
}

/// Why an enrolment's credential was refused (docs/API.md: 422 with these messages).
public enum PasskeyEnrolError: ObscuraError, Equatable {
    /// A check of the creation or of its assertion failed.
    case notVerified
    /// The credential id is longer than the 255 bytes the record holds.
    case credentialIDTooLong
    /// The key is neither ES256 nor Ed25519, or is not a usable key of either.
    case unsupportedKey

    public var description: String {
        switch self {
        case .notVerified: return "passkey not verified"
        case .credentialIDTooLong: return "credential id too long"
        case .unsupportedKey: return "this authenticator's key type is not supported"
        }
    }
}
