import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// One browser's session: a random 256-bit id (the cookie), its CSRF token, and the
/// vault it unlocked. Tabs of one browser share it through the cookie. Only the launch's
/// access token makes one (``LaunchAccess``), and its id changes at every unlock and
/// lock (``SessionStore/rotate(_:)``), so an id seen before an unlock is worth nothing
/// after it.
final class Session: @unchecked Sendable {
    // @unchecked: `binding` and `_id` are guarded by `lock`; `csrf` is immutable.
    /// The cookie value: 32 random bytes, base64url.
    var id: String { lock.withLock { _id } }
    /// The CSRF token: 32 random bytes, base64url, sent back in `X-CSRF-Token`.
    let csrf: String
    private let lock = NSLock()
    private var _id: String
    private var _binding: SessionStore.OpenVault?
    private var _views: [String: Date] = [:]
    private var _dropNewsSeen = 0
    private var _keyCheck: TypeBackCheck?
    private var _challenges: [PasskeyChallenge.Ceremony: PasskeyChallenge] = [:]

    init(random: RandomSource = SystemRandom()) {
        _id = Self.token(random)
        csrf = Self.token(random)
    }

    /// Gives the session a new random id and returns the old one (only the store calls
    /// this, under its own lock, so that its table follows).
    func renew(random: RandomSource = SystemRandom()) -> String {
        lock.withLock {
            defer { _id = Self.token(random) }
            return _id
        }
    }

    /// The vault this session unlocked, as the store opened it. Once the store locks
    /// that vault the binding is dead for good, even if someone unlocks the same vault
    /// again: a session regains access only with the password.
    var binding: SessionStore.OpenVault? {
        get { lock.withLock { _binding } }
        set {
            lock.withLock {
                _binding = newValue
                _views = [:]
                _keyCheck = nil
            }
        }
    }

    /// The serial of the last news of its vault's drop intakes this session was given
    /// (``SessionStore/OpenVault/dropNews``); news past it is the session's to tell.
    var dropNewsSeen: Int {
        get { lock.withLock { _dropNewsSeen } }
        set { lock.withLock { _dropNewsSeen = newValue } }
    }

    /// The group of the outer key this session was last asked to type back, set when
    /// the key is shown (docs/API.md, "Outer key"); nil before that and after a lock.
    var keyCheck: TypeBackCheck? {
        get { lock.withLock { _keyCheck } }
        set { lock.withLock { _keyCheck = newValue } }
    }

    /// When this session's viewer opened its counted view of the view-limited item `id`
    /// (docs/API.md, "Ends"), or nil when it holds none. Only the session holding a view
    /// may fetch the item, and only for ``ObscuraKit/ItemEnd/lastViewLimit`` after it
    /// opened; only it may close the view.
    func viewOpened(_ id: String) -> Date? { lock.withLock { _views[id] } }

    /// Records that the viewer opened a counted view of `id` at `time`, or (nil) closed it.
    func setView(of id: String, openedAt time: Date?) {
        lock.withLock { _views[id] = time }
    }

    /// A new challenge for a WebAuthn ceremony of `kind`, replacing the outstanding one of
    /// that kind (docs/PASSKEY.md §P5.4): at most one per kind, for one request.
    func issueChallenge(_ kind: PasskeyChallenge.Ceremony, at now: Double, random: RandomSource = SystemRandom()) -> PasskeyChallenge {
        let challenge = PasskeyChallenge(bytes: random.bytes(PasskeyChallenge.size),
                                         userHandle: random.bytes(PasskeyCredential.userHandleSize),
                                         tag: PasskeyRecord.newTag(using: random), issued: now)
        lock.withLock { _challenges[kind] = challenge }
        return challenge
    }

    /// Takes the outstanding challenge of `kind` away: it serves one request, used or not,
    /// and none is returned once it has expired.
    func takeChallenge(_ kind: PasskeyChallenge.Ceremony, at now: Double) -> PasskeyChallenge? {
        lock.withLock {
            guard let challenge = _challenges.removeValue(forKey: kind) else { return nil }
            return now - challenge.issued <= PasskeyChallenge.lifetime && now >= challenge.issued ? challenge : nil
        }
    }

    /// Whether `candidate` is this session's CSRF token, compared in constant time.
    func checkCSRF(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        return ConstantTime.equals(Array(candidate.utf8), Array(csrf.utf8))
    }

    static func token(_ random: RandomSource) -> String {
        Data(random.bytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A WebAuthn challenge the server issued to one session (docs/PASSKEY.md §P5.4).
struct PasskeyChallenge: Sendable {
    /// The two ceremonies: `create` at enrolment, `get` at unlock and enrolment's check.
    enum Ceremony: String, Sendable { case create, get }
    /// Random bytes of a challenge.
    static let size = 32
    /// Seconds a challenge stays valid: the page's own timeout (120 s).
    static let lifetime: Double = 120

    /// The challenge's bytes.
    let bytes: [UInt8]
    /// The user handle a `create` gives the new credential (a new one every enrolment,
    /// so that a second vault's enrolment on one authenticator replaces nothing).
    let userHandle: [UInt8]
    /// The display tag a `create` names the credential with (`Obscura · TAG`), which the
    /// vault's list shows beside the passkey's name.
    let tag: String
    /// When it was issued (the store's clock).
    let issued: Double
}
