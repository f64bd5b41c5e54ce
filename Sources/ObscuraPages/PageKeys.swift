import ObscuraCrypto

/// The catalog's keys, derived from the vault's MEK (docs/FORMAT.md §9.1 "Keys"):
/// K_root seals the root in the header, K_page(g) seals pages and nodes of generation g.
package final class PageKeys: @unchecked Sendable {
    // @unchecked: the cached page key is read and replaced only under the owner's lock.

    /// §9.1 "Keys": the HKDF-Extract salt.
    static let extractSalt: [UInt8] = Array("obscura v4 catalog".utf8)
    /// §9.1 "Keys": the HKDF-Expand label of K_root.
    static let rootLabel: [UInt8] = Array("obscura catalog root".utf8)
    /// §9.1 "Keys": the HKDF-Expand label of K_page(g), followed by UInt32BE(g).
    static let pageLabel: [UInt8] = Array("obscura catalog pages".utf8)

    private let mek: SecureBytes
    /// K_root.
    package let root: SecureBytes
    private var pageKeys: [UInt32: SecureBytes] = [:]

    /// Derives K_root from `mek` and keeps a copy of the MEK for page keys.
    package init(mek: SecureBytes) throws {
        guard mek.count == AESGCM.keySize else {
            throw CryptoError.invalidLength(what: "master key", expected: AESGCM.keySize, actual: mek.count)
        }
        self.mek = mek.copy()
        root = HKDFSHA256.derive(from: mek, salt: Self.extractSalt, info: Self.rootLabel)
    }

    /// Zeroes the MEK's copy and every key derived from it: the catalog is closed (at a
    /// lock), and its keys must not outlive the vault's own MEK, which the lock zeroes,
    /// for as long as something still holds this object.
    package func zeroize() {
        mek.zeroize()
        root.zeroize()
        for key in pageKeys.values { key.zeroize() }
        pageKeys = [:]
    }

    /// K_page(`generation`). The last two derived are kept: every read needs the current
    /// one, and a new generation's commit reads under g while it seals under g+1.
    package func page(_ generation: UInt32) -> SecureBytes {
        if let key = pageKeys[generation] { return key }
        var info = Self.pageLabel
        info.appendBigEndian(generation)
        let key = HKDFSHA256.derive(from: mek, salt: Self.extractSalt, info: info)
        if pageKeys.count >= 2, let oldest = pageKeys.keys.min() { pageKeys[oldest] = nil }
        pageKeys[generation] = key
        return key
    }
}
