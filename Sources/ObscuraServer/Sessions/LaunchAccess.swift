import Foundation
import Hummingbird
import ObscuraCrypto

/// What one launch of `obscura serve` hands out to whoever started it (docs/API.md,
/// "Access token"): a random access token, printed once inside the URL's fragment, that
/// the page trades for a session; and the session cookie's name, which differs from one
/// launch to the next.
///
/// Without the token nobody who can merely reach the port gets a session, so nobody
/// can create vaults, count the decoys by creating until "no free slot", or guess
/// passwords. The token travels in the fragment (`#token=`), which browsers never send
/// to a server, log in history requests or put in a Referer; the page removes it from
/// the address bar as soon as it has read it.
///
/// Cookies ignore ports: a cookie named alike by two launches on two ports of one host
/// would overwrite the other's and be sent to both. A per-launch name keeps each
/// launch's cookie to itself; under TLS the name carries the `__Host-` prefix, so the
/// browser accepts it only from a secure origin, for the whole host, with no Domain.
struct LaunchAccess: Sendable {
    /// The access token: 32 random bytes as 64 lower-case hex digits.
    let token: SecureBytes
    /// The session cookie's name for this launch.
    let cookieName: String
    /// Whether the cookie is `Secure` (the server speaks HTTPS).
    let secure: Bool

    init(secure: Bool, random: RandomSource = SystemRandom()) {
        // The token's hex stays in zeroing memory: it never passes through a String.
        token = SecureBytes(randomCount: Self.tokenBytes, using: random).lowercaseHex()
        let tag = random.bytes(6).map { String(format: "%02x", $0) }.joined()
        cookieName = (secure ? "__Host-" : "") + "obscura_\(tag)"
        self.secure = secure
    }

    /// Whether `candidate` is the access token, compared in constant time.
    func check(_ candidate: SecureBytes?) -> Bool {
        guard let candidate else { return false }
        return token == candidate
    }

    /// Random bytes in the token.
    static let tokenBytes = 32

    /// `url` with the access token in its fragment (the link printed at launch), as
    /// bytes in a zeroing buffer.
    func link(_ url: String) -> SecureBytes {
        let prefix = Array((url + "#token=").utf8)
        let out = SecureBytes(count: prefix.count + token.count)
        out.withUnsafeMutableBytes { dst in
            dst.copyBytes(from: prefix)
            token.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: dst[prefix.count...]).copyMemory(from: $0) }
        }
        return out
    }

    /// The `Set-Cookie` for `session`: HttpOnly, SameSite=Strict, the whole path.
    func cookie(for session: Session) -> Cookie {
        Cookie(name: cookieName, value: session.id, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}
