import Foundation
import Hummingbird
import ObscuraCrypto
import ObscuraKeys
import ObscuraKit

/// `/api/passkey/begin`, `/api/unlock/passkey`, `/api/passkeys`, `/api/passkeys/check`
/// and `/api/passkeys/remove` (docs/API.md, "Passkeys"; design: docs/PASSKEY.md §P5.4).
///
/// Bodies are flat JSON objects of strings, read by ``SecretFields`` so that the PRF
/// output and the password never become a `String`; binary fields are base64url without
/// padding, decoded strictly and bounded before anything else runs (a malformed request
/// is 400 and tests nothing).
struct PasskeyRoutes {
    let store: SessionStore
    let access: LaunchAccess
    /// Whether the server speaks TLS: then the relying party is the name the page was
    /// reached by; without, only `localhost`.
    let usesTLS: Bool

    // Sizes of §P5.4 ("Shape and size rules").
    static let prfSize = 32
    static let rawIDSizes = 1...PasskeyCredential.maximumIDSize
    static let authenticatorDataSizes = 37...1024
    static let clientDataSizes = 1...2048
    static let signatureSizes = 8...80
    static let userHandleSizes = 1...64
    static let publicKeySizes = 1...128

    func register(on router: Router<GalleryContext>) {
        router.post("/api/passkey/begin") { request, context -> Response in
            let session = try context.requireSession()
            let party = try self.party(of: request)
            struct Body: Decodable { var kind: String }
            guard let kind = PasskeyChallenge.Ceremony(rawValue: try await JSON.decode(Body.self, from: request).kind) else {
                throw APIError.badRequest("kind is create or get")
            }
            // Enrolment is for an unlocked session; an unlock's challenge for any.
            if kind == .create { _ = try context.vault() }
            let input = try store.directory.passkeyPRFInput()
            let challenge = session.issueChallenge(kind, at: store.time.timeIntervalSince1970)
            struct Begun: Encodable { var input, challenge, rpId: String; var userId, tag: String? }
            return try JSON.response(Begun(
                input: Self.text(input), challenge: Self.text(challenge.bytes), rpId: party.id,
                userId: kind == .create ? Self.text(challenge.userHandle) : nil, tag: kind == .create ? challenge.tag : nil))
        }
        router.post("/api/unlock/passkey") { request, context -> Response in
            let session = try context.requireSession()
            let party = try self.party(of: request)
            let fields = try await SecretFields.json(from: request)
            let prf = try Self.secret(fields, "prf")
            defer { prf.zeroize() }
            let assertion = try Self.assertion(fields, prefix: "")
            // Taken before the sweep: a challenge serves one request, answered or not.
            let challenge = session.takeChallenge(.get, at: store.time.timeIntervalSince1970)
            let drops = try await Blocking.run {
                try store.unlock(session, passkey: prf, assertion: assertion, challenge: challenge?.bytes, party: party)
            }
            struct Unlocked: Encodable { var unlocked = true; var drops: String?; var dropsRefused: Int? }
            var response = try JSON.response(Unlocked(drops: drops.summary, dropsRefused: drops.failed.count + drops.keptAsFiles.count == 0 ? nil : drops.failed.count + drops.keptAsFiles.count))
            response.setCookie(access.cookie(for: session))
            return response
        }
        router.get("/api/passkeys") { _, context -> Response in
            let vault = try context.vault()
            struct Listed: Encodable { var name, tag: String; var createdAt: UInt64; var synced, enrolledAfterPasswordChange: Bool }
            let passkeys = try vault.passkeys().sorted { $0.name < $1.name }.map {
                Listed(name: $0.name, tag: $0.tag, createdAt: $0.createdAt, synced: $0.synced,
                       enrolledAfterPasswordChange: $0.enrolledAfterPasswordChange)
            }
            return try JSON.response(["passkeys": passkeys])
        }
        router.post("/api/passkeys") { request, context -> Response in
            let session = try context.requireSession()
            let vault = try context.vault()
            let party = try self.party(of: request)
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            defer { password.zeroize() }
            let prf = try Self.secret(fields, "prf")
            defer { prf.zeroize() }
            guard let name = fields.text("name") else { throw APIError.badRequest("name is required") }
            let registration = PasskeyRegistration(
                credentialID: try Self.bytes(fields, "createRawId", Self.rawIDSizes),
                clientDataJSON: try Self.bytes(fields, "createClientDataJSON", Self.clientDataSizes),
                authenticatorData: try Self.bytes(fields, "createAuthenticatorData", Self.authenticatorDataSizes),
                publicKey: try Self.bytes(fields, "createPublicKey", Self.publicKeySizes),
                algorithm: try Self.algorithm(fields))
            let assertion = try Self.assertion(fields, prefix: "get")
            let now = store.time.timeIntervalSince1970
            let create = session.takeChallenge(.create, at: now), get = session.takeChallenge(.get, at: now)
            let info = try await Blocking.run {
                try store.enrolPasskey(in: vault, password: password, name: name, prf: prf, tag: create?.tag) {
                    try registration.verify(assertion: assertion, createChallenge: create?.bytes, getChallenge: get?.bytes,
                                            userHandle: create?.userHandle ?? [], party: party)
                }
            }
            struct Enrolled: Encodable { var name, tag: String; var coverOwed: Bool? }
            return try JSON.response(Enrolled(name: info.name, tag: info.tag, coverOwed: vault.credentialCoverOwed ? true : nil),
                                     status: .created)
        }
        router.post("/api/passkeys/check") { request, context -> Response in
            let vault = try context.vault()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            defer { password.zeroize() }
            guard let name = fields.text("name") else { throw APIError.badRequest("name is required") }
            try await Blocking.run { try store.checkEnrolment(in: vault, password: password, name: name) }
            return JSON.noContent()
        }
        router.post("/api/passkeys/remove") { request, context -> Response in
            let vault = try context.vault()
            let fields = try await SecretFields.json(from: request)
            let password = try fields.require("password")
            defer { password.zeroize() }
            guard let name = fields.text("name") else { throw APIError.badRequest("name is required") }
            let id = try await Blocking.run { try store.removePasskey(of: vault, password: password, name: name) }
            // Only to the session that has just given the password: the page signals the
            // credential unknown to the authenticator (§P4.3).
            struct Removed: Encodable { var credentialId: String; var coverOwed: Bool? }
            return try JSON.response(Removed(credentialId: Self.text(id), coverOwed: vault.credentialCoverOwed ? true : nil))
        }
    }

    /// The relying party of a request: `localhost` at the port the page was reached on,
    /// or the TLS host. A page at an IP address has none: WebAuthn refuses IP addresses.
    func party(of request: Request) throws -> RelyingParty {
        // OriginMiddleware has checked the Host against this server's names already.
        let host = (request.headers[.hostHeader] ?? request.head.authority ?? "").lowercased()
        let (name, port) = Self.split(host)
        if usesTLS {
            // A name the server answers to (the certificate's, one would hope), never an
            // address: WebAuthn refuses IP addresses as relying parties.
            guard !Self.isAddress(name) else {
                throw APIError.badRequest("passkeys work at the server's host name, not at an address: open it by its name")
            }
            return RelyingParty.tls(host: name, port: port ?? 443)
        }
        guard name == "localhost", let port else {
            throw APIError.badRequest("passkeys work at the server's name, not at an address: open http://localhost:\(port.map(String.init) ?? "PORT")/")
        }
        return RelyingParty.loopback(port: port)
    }

    /// Whether a Host name is an IPv4 or bracketed IPv6 address.
    static func isAddress(_ name: String) -> Bool {
        name.hasPrefix("[") || (!name.isEmpty && name.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// A Host value's name and port (`localhost:8750`, `[::1]:8750`, `vault.lan`).
    static func split(_ host: String) -> (String, Int?) {
        guard let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") else { return (host, nil) }
        return (String(host[..<colon]), Int(host[host.index(after: colon)...]))
    }

    /// Field `name`, base64url, decoded and within `sizes`; 400 otherwise.
    static func bytes(_ fields: SecretFields, _ name: String, _ sizes: ClosedRange<Int>) throws -> [UInt8] {
        guard let text = fields[name], let bytes = text.withUnsafeBytes({ Base64URL.decode($0) }), sizes.contains(bytes.count) else {
            throw APIError.badRequest("\(name) is required: base64url of \(sizes.lowerBound) to \(sizes.upperBound) bytes")
        }
        return bytes
    }

    /// The PRF output, decoded straight into zeroing memory; 400 unless 32 bytes.
    static func secret(_ fields: SecretFields, _ name: String) throws -> SecureBytes {
        guard let text = fields[name], let secret = text.withUnsafeBytes({ Base64URL.decodeSecret($0) }), secret.count == prfSize else {
            throw APIError.badRequest("\(name) is required: base64url of \(prfSize) bytes")
        }
        return secret
    }

    private static func algorithm(_ fields: SecretFields) throws -> Int {
        guard let text = fields.text("createAlgorithm"), let value = Int(text), (-65536...65535).contains(value) else {
            throw APIError.badRequest("createAlgorithm is required: a COSE algorithm number")
        }
        return value
    }

    /// An assertion from fields `rawId`, `authenticatorData`, `clientDataJSON`,
    /// `signature` and the optional `userHandle`, each after `prefix` (lower camel case).
    static func assertion(_ fields: SecretFields, prefix: String) throws -> PasskeyAssertion {
        func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + name.prefix(1).uppercased() + name.dropFirst() }
        let handle = fields[key("userHandle")] == nil ? nil : try bytes(fields, key("userHandle"), userHandleSizes)
        return PasskeyAssertion(
            credentialID: try bytes(fields, key("rawId"), rawIDSizes),
            authenticatorData: try bytes(fields, key("authenticatorData"), authenticatorDataSizes),
            clientDataJSON: try bytes(fields, key("clientDataJSON"), clientDataSizes),
            signature: try bytes(fields, key("signature"), signatureSizes), userHandle: handle)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: Base64URL.encode(bytes), as: UTF8.self) }
}
