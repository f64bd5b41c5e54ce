import Crypto
import Foundation
import ObscuraCrypto
import ObscuraKeys

/// One discoverable ES256 credential with a PRF, answering as a WebAuthn client and
/// authenticator would for `localhost` (docs/FORMAT.md §9.9): what the page sends after
/// `create()` and `get()`. The browser tests drive Chromium's own authenticator; this
/// one lets the API tests sign in process.
struct SoftAuthenticator {
    let key = P256.Signing.PrivateKey()
    let credentialID = SystemRandom().bytes(16)
    /// The PRF output this credential gives at the directory's input.
    let prf = SystemRandom().bytes(32)
    var origin = "http://localhost:8750"
    var rpID = "localhost"

    static func text(_ bytes: [UInt8]) -> String { String(decoding: Base64URL.encode(bytes), as: UTF8.self) }

    private func clientData(_ type: String, _ challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// The fields of `POST /api/passkeys` for a creation answering `createChallenge` with
    /// `userID`, and its check `get()` answering `getChallenge`.
    func enrolment(createChallenge: String, getChallenge: String, userID: String) -> [String: String] {
        var data = Array(SHA256.hash(data: Array(rpID.utf8)))
        data.append(0x45)                                   // UP, UV, AT
        data += [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
        data += [0, UInt8(credentialID.count)] + credentialID
        data += [0xA0]                                      // the COSE key, which the server does not read
        var fields = [
            "prf": Self.text(prf),
            "createRawId": Self.text(credentialID),
            "createClientDataJSON": Self.text(clientData("webauthn.create", createChallenge)),
            "createAuthenticatorData": Self.text(data),
            "createPublicKey": Self.text(Array(key.publicKey.derRepresentation)),
            "createAlgorithm": "-7",
        ]
        for (name, value) in assertion(challenge: getChallenge, userHandle: userID) {
            fields["get" + name.prefix(1).uppercased() + name.dropFirst()] = value
        }
        return fields
    }

    /// The fields of `POST /api/unlock/passkey` answering `challenge`.
    func unlock(challenge: String, userHandle: String?, flags: UInt8 = 0x05) -> [String: String] {
        var fields = assertion(challenge: challenge, userHandle: userHandle, flags: flags)
        fields["prf"] = Self.text(prf)
        return fields
    }

    private func assertion(challenge: String, userHandle: String?, flags: UInt8 = 0x05) -> [String: String] {
        let data = Array(SHA256.hash(data: Array(rpID.utf8))) + [flags, 0, 0, 0, 1]
        let client = clientData("webauthn.get", challenge)
        let signed = data + Array(SHA256.hash(data: client))
        var fields = [
            "rawId": Self.text(credentialID),
            "authenticatorData": Self.text(data),
            "clientDataJSON": Self.text(client),
            "signature": Self.text(Array(try! key.signature(for: signed).derRepresentation)),
        ]
        if let userHandle { fields["userHandle"] = userHandle }
        return fields
    }
}
