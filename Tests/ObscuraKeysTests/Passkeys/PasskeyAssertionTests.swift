import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The assertion check V1–V13 and the enrolment check E1–E5 (docs/FORMAT.md §9.9) over
/// testdata/passkey/assertion and testdata/passkey/enrol: each failing case fails at the
/// step it was made for (and only where a missing row or client data takes others with
/// it), each valid case passes.
@Suite struct PasskeyAssertionTests {
    static func party(_ body: [String: Any]) throws -> RelyingParty {
        RelyingParty(id: try #require(body["rpId"] as? String), origin: try #require(body["origin"] as? String))
    }

    @Test func everyAssertionVectorFailsAtItsStepOrPasses() throws {
        let cases = try PasskeyVectors.load("assertion")
        #expect(cases.count >= 30)
        #expect(cases.contains { $0.body["expect"] as? String == "valid" })
        for (name, body) in cases {
            let assertion = try PasskeyVectors.assertion(body["assertion"])
            let credential = try PasskeyVectors.credential(body["row"])
            let challenge = PasskeyVectors.bytes(body["challenge"])
            let party = try Self.party(body)
            let failed = assertion.steps(against: credential, challenge: challenge, party: party).filter { !$0.passed }.map(\.step)
            #expect(failed == (body["fails"] as? [String] ?? ["?"]), "\(name)")
            #expect(assertion.verify(against: credential, challenge: challenge, party: party) == (body["expect"] as? String == "valid"), "\(name)")
        }
    }

    @Test func everyEnrolVectorIsRefusedAsExpectedOrKept() throws {
        let cases = try PasskeyVectors.load("enrol")
        #expect(cases.count >= 20)
        for (name, body) in cases {
            let fields = try #require(body["registration"] as? [String: Any])
            let registration = PasskeyRegistration(
                credentialID: try #require(PasskeyVectors.bytes(fields["rawId"])),
                clientDataJSON: try #require(PasskeyVectors.bytes(fields["clientDataJSON"])),
                authenticatorData: try #require(PasskeyVectors.bytes(fields["authenticatorData"])),
                publicKey: try #require(PasskeyVectors.bytes(fields["publicKey"])),
                algorithm: try #require(fields["algorithm"] as? Int))
            let user = try #require(PasskeyVectors.bytes(body["userHandle"]))
            let outcome = registration.check(
                assertion: try PasskeyVectors.assertion(body["assertion"]),
                createChallenge: PasskeyVectors.bytes(body["createChallenge"]),
                getChallenge: PasskeyVectors.bytes(body["getChallenge"]), userHandle: user, party: try Self.party(body))
            switch (outcome, body["expect"] as? String) {
            case (.success(let credential), "valid"):
                let stored = try #require(body["stored"] as? [String: Bool])
                #expect(credential.id == registration.credentialID && credential.userHandle == user, "\(name)")
                #expect(credential.backupEligible == stored["be"] && credential.backedUp == stored["bs"], "\(name)")
            case (.failure(let refusal), let expected?):
                // Each refusal comes from the step the vector was made for, with its error.
                #expect(refusal.step == body["step"] as? String, "\(name): refused at \(refusal.step)")
                let error: PasskeyEnrolError? = ["not-verified": .notVerified, "unsupported-key": .unsupportedKey,
                                                 "id-too-long": .credentialIDTooLong][expected]
                #expect(refusal.error == error, "\(name)")
            default:
                Issue.record("\(name): \(outcome), expected \(body["expect"] ?? "?")")
            }
        }
    }

    /// The failure messages are the API's 422 texts and carry nothing of the request.
    @Test func enrolErrorsSayWhatTheAPISays() {
        #expect(PasskeyEnrolError.notVerified.description == "passkey not verified")
        #expect(PasskeyEnrolError.unsupportedKey.description == "this authenticator's key type is not supported")
    }

    @Test func base64URLRoundTripsAndRefusesOtherSpellings() {
        for count in 0..<40 {
            let bytes = SystemRandom().bytes(count)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode(Array("hello?>".utf8)) == Array("aGVsbG8_Pg".utf8))
        for bad in ["aGVsbG8_Pg==", "aGVsbG8/Pg", "a", "aGVsbG8_Ph"] {
            #expect(Base64URL.decode(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
