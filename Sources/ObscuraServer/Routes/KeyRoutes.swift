import Hummingbird
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `/api/keys/outer` (docs/API.md, "Outer key"): where the directory's outer key is
/// kept, the key itself to write down or print, and the check that it was written down
/// (docs/FORMAT.md §4.3), the gallery's counterpart of `init`'s prompt and of
/// `obscura keys export outer` / `keys verify outer`.
///
/// Only an unlocked session reaches these, and the key itself is shown only by a server
/// bound to loopback: the launch link alone lets its holder create a vault and so unlock
/// one, and O with older copies of the directory tells which slots changed, that is,
/// which are vaults (docs/SECURITY.md, "The gallery"). On loopback the link's holder is
/// this machine's user, who holds the keyring anyway; elsewhere `obscura keys export
/// outer` on the machine shows it.
struct KeyRoutes {
    /// The served directory's key; nil for a version 3 directory, which has none.
    let custody: OuterKeyCustody?
    /// Whether the server listens on loopback only (``GalleryServer/Configuration/isLoopback``).
    let loopback: Bool

    /// `GET /api/keys/outer`.
    struct State: Encodable {
        /// "keyring", "file", or "none" (a version 3 directory).
        var kept: String
        /// Whether a copy is confirmed; a key file is itself the copy. Absent for "none".
        var confirmed: Bool?
        /// The key file's path, for "file".
        var path: String?
        /// Whether this server shows the key (only on loopback).
        var shown: Bool
    }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/keys/outer") { _, context -> Response in
            _ = try context.vault()
            return try JSON.response(state)
        }
        router.post("/api/keys/outer/show") { _, context -> Response in
            _ = try context.vault()
            let session = try context.requireSession()
            guard let custody else { throw Self.none }
            guard loopback else { throw Self.notHere }
            let check = TypeBackCheck()
            session.keyCheck = check
            return custody.withExport { text, words in Self.exportResponse(text: text, words: words, group: check.group) }
        }
        router.post("/api/keys/outer/verify") { request, context -> Response in
            _ = try context.vault()
            let session = try context.requireSession()
            guard let custody else { throw Self.none }
            guard loopback else { throw Self.notHere }
            let fields = try await SecretFields.json(from: request)
            // The group the page asked for: another show (a second tab) draws a new one.
            guard let check = session.keyCheck, fields.text("group").flatMap(Int.init) == check.group else {
                throw APIError(.conflict, "The key was shown again since this question (another tab?). Show it here again.")
            }
            let typed = try fields.require("answer")
            defer { typed.zeroize() }
            // The keyring is D-Bus (or the Keychain): off the event loop.
            let right = try await Blocking.run {
                do {
                    return try custody.answer(typed, to: check)
                } catch {
                    throw APIError(.internalServerError, "the keyring did not record the confirmation: \(error)")
                }
            }
            guard right else {
                throw APIError(.unprocessableContent,
                               "That does not match group \(check.group) and the last group of the key.")
            }
            session.keyCheck = nil
            return try JSON.response(state)
        }
    }

    private var state: State {
        guard let custody else { return State(kept: "none", shown: false) }
        switch custody.place {
        case .keyring: return State(kept: "keyring", confirmed: custody.confirmed, shown: loopback)
        case let .keyFile(path): return State(kept: "file", confirmed: true, path: path, shown: loopback)
        }
    }

    private static let none = APIError(.notFound, "this directory has no outer key yet (version 3 slots): run `obscura migrate`")
    private static let notHere = APIError(
        .forbidden, "The outer key is shown only by a gallery on this computer's own address: run `obscura keys export outer` on the computer that serves it.")

    /// `{"group":N,"text":"…","words":"…"}` assembled in a zeroing buffer, never a
    /// String. The HTTP stack's copy of the body is freed, unzeroed, once sent, as every
    /// photo's bytes are (docs/SECURITY.md, "Key hygiene").
    static func exportResponse(text: SecureBytes, words: SecureBytes, group: Int) -> Response {
        let body = SecureBuffer(capacity: 512)
        func add(_ plain: String) { for byte in plain.utf8 { body.append(byte) } }
        func add(_ secret: SecureBytes) {
            secret.withUnsafeBytes { raw in
                for byte in raw {
                    // Key text and words are printable ASCII without quotes or
                    // backslashes (§4.3), so they need no JSON escaping.
                    precondition(byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\"))
                    body.append(byte)
                }
            }
        }
        add("{\"group\":\(group),\"text\":\"")
        add(text)
        add("\",\"words\":\"")
        add(words)
        add("\"}")
        text.zeroize()
        words.zeroize()
        let bytes = body.take()
        defer { bytes.zeroize() }
        let buffer = bytes.withUnsafeBytes { ByteBuffer(bytes: $0) }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: buffer))
    }
}
