/// Single-shot sealed files for thumbnails and other small data (docs/FORMAT.md §6.5):
/// one sealed box, nonce ‖ ciphertext ‖ tag, with `context` as associated data.
///
/// Writers draw nonces that never start with the chunked magic, so a reader can tell the
/// two formats apart from the first four bytes.
public enum SealedBlob {
    /// Seals `plaintext` under `key`, and again under `folderKey` when given (a
    /// folder-protected thumbnail: the inner sealed box is the outer layer's plaintext,
    /// and both layers take `context` as associated data, §6.5).
    public static func seal(
        _ plaintext: some Collection<UInt8>, key: SecureBytes, folderKey: SecureBytes? = nil,
        context: [UInt8], using random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        let inner = try AESGCM.seal(Array(plaintext), key: key, nonce: freshNonce(random), authenticating: context)
        guard let folderKey else { return inner }
        return try AESGCM.seal(inner, key: folderKey, nonce: freshNonce(random), authenticating: context)
    }

    /// Opens a sealed blob; `folderKey` must be given exactly when it was sealed with one.
    public static func open(
        _ sealed: some Collection<UInt8>, key: SecureBytes, folderKey: SecureBytes? = nil, context: [UInt8]
    ) throws -> [UInt8] {
        guard !isChunked(sealed) else { throw StreamError.unsupported("expected a single-shot file") }
        var inner = Array(sealed)
        if let folderKey { inner = try AESGCM.open(inner, key: folderKey, authenticating: context) }
        return try AESGCM.open(inner, key: key, authenticating: context)
    }

    /// Whether `bytes` start with the chunked format's magic.
    package static func isChunked(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.prefix(ChunkedFormat.magic.count).elementsEqual(ChunkedFormat.magic)
    }

    private static func freshNonce(_ random: RandomSource) -> [UInt8] {
        while true {
            let nonce = random.bytes(AESGCM.nonceSize)
            if !isChunked(nonce) { return nonce }
        }
    }
}
