import ObscuraCrypto

/// Seals and opens one SQLite page as one logical block (docs/FORMAT.md §9.2 "Pages"):
/// Seal(K_page(g), page[0, 4040), AD_page), 4068 bytes.
package enum PageCodec {
    /// §9.2 "Pages": AD_page = "obsv4pg" 00 ‖ vault id ‖ UInt32BE(k) ‖ UInt32BE(g), 32 bytes.
    package static func associatedData(vaultID: [UInt8], page k: Int, generation g: UInt32) -> [UInt8] {
        var ad = PagesFormat.pageLabel + vaultID
        ad.appendBigEndian(UInt32(k))
        ad.appendBigEndian(g)
        return ad
    }

    /// Seals the 4096-byte `page` numbered `k`. Its 56 reserved bytes must be zero: they
    /// are not stored, so a nonzero byte would come back changed.
    package static func seal(
        _ page: UnsafeRawBufferPointer, page k: Int, vaultID: [UInt8], generation g: UInt32,
        key: SecureBytes, random: RandomSource
    ) throws -> [UInt8] {
        guard page.count == PagesFormat.pageSize else {
            throw PagesError.unsupported("a page write of \(page.count) bytes")
        }
        let reserved = UnsafeRawBufferPointer(rebasing: page[PagesFormat.usableBytes...])
        guard reserved.allSatisfy({ $0 == 0 }) else {
            throw PagesError.unsupported("page \(k) has nonzero reserved bytes")
        }
        let used = UnsafeRawBufferPointer(rebasing: page[0..<PagesFormat.usableBytes])
        return try AESGCM.seal(
            used, key: key, authenticating: associatedData(vaultID: vaultID, page: k, generation: g),
            using: random)
    }

    /// Opens sealed page `k` into the 4096-byte `output` (the 56 reserved bytes zero).
    /// When `tag` is given, the sealed block's last 16 bytes must equal it first.
    /// Nothing but zeros is written to `output` unless the page verifies.
    package static func open(
        _ sealed: [UInt8], page k: Int, expectedTag tag: ArraySlice<UInt8>?, vaultID: [UInt8],
        generation g: UInt32, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
    ) throws {
        precondition(output.count == PagesFormat.pageSize, "PageCodec.open: output size")
        do {
            guard sealed.count == PagesFormat.blockPayload else { throw PagesError.damagedPage(page: k) }
            if let tag, !ConstantTime.equals(sealed[(sealed.count - PagesFormat.tagSize)...], tag) {
                throw PagesError.damagedPage(page: k)
            }
            let ad = associatedData(vaultID: vaultID, page: k, generation: g)
            let nonce = Array(sealed[0..<AESGCM.nonceSize])
            try sealed.withUnsafeBytes { bytes in
                try AESGCM.openDetached(
                    UnsafeRawBufferPointer(rebasing: bytes[AESGCM.nonceSize...]), key: key, nonce: nonce,
                    authenticating: ad,
                    into: UnsafeMutableRawBufferPointer(rebasing: output[0..<PagesFormat.usableBytes]))
            }
            UnsafeMutableRawBufferPointer(rebasing: output[PagesFormat.usableBytes...]).initializeMemory(as: UInt8.self, repeating: 0)
        } catch {
            output.initializeMemory(as: UInt8.self, repeating: 0)
            throw PagesError.damagedPage(page: k)
        }
    }
}
