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
