// Targets for what a passkey request carries (docs/FORMAT.md §9.9): the assertion an
// unlock checks once a field has opened, and the creation and assertion an enrolment
// checks. The parsers are JSON (`clientDataJSON`), fixed offsets of the authenticator
// data, DER signatures and SPKI prefixes; no CBOR.
import ObscuraCrypto
import ObscuraKeys

/// The relying party, challenges, credential and user handle of testdata/passkey (made by
/// tools/passkey-vectors/make.py), so that seeds from the vectors reach the signature.
enum PasskeyFuzzing {
    static let party = RelyingParty(id: "localhost", origin: "http://localhost:8731")
    static let challenge = [UInt8](0x60..<0x80)
    static let createChallenge = [UInt8](0xE0...0xFF)
    static let user = [UInt8](0x70..<0x80)
    static let credential = PasskeyCredential(
        id: [UInt8](0x90..<0xA0), userHandle: user,
        key: SignatureKey.p256(point: hex(
            "0468ec7cf08cd4106e43b14de895426522bd0a45150c027e45c7953434d747e7bae3af39a88ebbee8679bb61e7845c3a89cb9b5a3237c3fdb0b0587dbaf415118d"))!,
        backupEligible: false)

    /// The input as length-prefixed fields: UInt16BE length ‖ bytes, repeated; nil when
    /// fewer than `count` fields are whole (what is left over is ignored).
    static func fields(_ bytes: [UInt8], count: Int) -> [[UInt8]]? {
        var out = [[UInt8]]()
        var at = 0
        while out.count < count {
            guard at + 2 <= bytes.count else { return nil }
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
            guard at + length <= bytes.count else { return nil }
            out.append(Array(bytes[at..<(at + length)]))
            at += length
        }
        return out
    }

    static func assertion(_ fields: ArraySlice<[UInt8]>) -> PasskeyAssertion {
        let f = Array(fields)
        return PasskeyAssertion(credentialID: f[0], authenticatorData: f[1], clientDataJSON: f[2], signature: f[3],
                                userHandle: f[4].isEmpty ? nil : f[4])
    }

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { i in
            let start = text.index(text.startIndex, offsetBy: i)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}

/// An unlock's assertion: rawId, authenticatorData, clientDataJSON, signature, userHandle
/// (empty: absent), checked against the vectors' row with and without a challenge, and
/// against a free row.
let passkeyAssertionTarget = FuzzTarget("passkey-assertion") { bytes in
    guard let fields = PasskeyFuzzing.fields(bytes, count: 5) else { return }
    let assertion = PasskeyFuzzing.assertion(fields[0..<5])
    _ = assertion.verify(against: PasskeyFuzzing.credential, challenge: PasskeyFuzzing.challenge, party: PasskeyFuzzing.party)
    _ = assertion.verify(against: nil, challenge: nil, party: PasskeyFuzzing.party)
}

/// An enrolment: rawId, clientDataJSON, authenticatorData, SPKI, the algorithm (2 bytes,
/// signed), then the restricted assertion's five fields.
let passkeyEnrolTarget = FuzzTarget("passkey-enrol") { bytes in
    guard let fields = PasskeyFuzzing.fields(bytes, count: 10), fields[4].count == 2 else { return }
    let algorithm = Int(Int16(bitPattern: UInt16(fields[4][0]) << 8 | UInt16(fields[4][1])))
    let registration = PasskeyRegistration(
        credentialID: fields[0], clientDataJSON: fields[1], authenticatorData: fields[2], publicKey: fields[3], algorithm: algorithm)
    _ = try? registration.verify(
        assertion: PasskeyFuzzing.assertion(fields[5..<10]), createChallenge: PasskeyFuzzing.createChallenge,
        getChallenge: PasskeyFuzzing.challenge, userHandle: PasskeyFuzzing.user, party: PasskeyFuzzing.party)
}
