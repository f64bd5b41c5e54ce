/// One request's hold on its vault's idle time (docs/SECURITY.md, "Session lifecycle").
///
/// A request that uses its vault (``GalleryContext/vault()``) keeps the vault from
/// auto-locking until it has finished answering, and its end counts as activity: an
/// upload whose body takes longer than the auto-lock delay lands instead of finding its
/// vault locked. The hold ends when this object goes, which is when the request's answer
/// has been written or dropped, on every path, thrown errors included.
final class RequestActivity: @unchecked Sendable {
    // @unchecked: `entry` is read and written under the session store's lock only.
    private let store: SessionStore
    /// The open vault this request used, once it has.
    var entry: SessionStore.OpenVault?

    init(store: SessionStore) {
        self.store = store
    }

    deinit { store.requestEnded(self) }
}
