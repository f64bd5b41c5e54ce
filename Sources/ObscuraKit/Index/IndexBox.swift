import Foundation
import ObscuraCatalog
import ObscuraCrypto

/// What the picture index holds of a protected item, sealed under its folder key as one
/// box of one size (docs/FORMAT.md §6.4, "The index box"): under the MEK alone a row
/// shows only that the item was indexed, not whether it holds text, how much, or a vector.
package struct IndexBox: Equatable, Sendable {
    /// §6.4: the box's version byte.
    static let version: UInt8 = 1
    /// §6.4: the associated data's label, before the item id's 16 bytes, so that an index
    /// box and the item's `protectedMeta` box, both under the folder key, cannot stand in
    /// for each other.
    static let label = Array("obscura index v1".utf8)
    /// §6.4: the plaintext's length: version, flags, n, the two profiles, the text field,
    /// the vector field and the padding.
    static let plaintextSize = 4608
    /// §6.4: nonce ‖ ciphertext ‖ tag.
    package static let sealedSize = AESGCM.nonceSize + plaintextSize + AESGCM.tagSize
    /// §6.4: the padding after the vector field.
    static let paddingSize = plaintextSize - 12 - IndexLimits.textCap - IndexLimits.vectorSize

    /// The outcome: flags 1–32 of §3.3.
    package var state: IndexState
    /// The text read (UTF-8, at most ``IndexLimits/textCap`` bytes), empty when none.
    package var text: String
    /// The profiles that read the text and made the vector; 0 for none.
    package var textProfile: UInt32
    package var vectorProfile: UInt32
    /// The vector, exactly when `state` holds ``IndexState/vectorMade``.
    package var vector: IndexVector?

    package init(state: IndexState, text: String = "", textProfile: UInt32 = 0, vectorProfile: UInt32 = 0, vector: IndexVector? = nil) {
        precondition(IndexState.outcomes.isSuperset(of: state), "a box holds flags 1–32")
        precondition(text.utf8.count <= IndexLimits.textCap, "a box's text is at most 3,840 bytes")
        precondition((vector != nil) == state.contains(.vectorMade), "a vector exactly with flag 2")
        self.state = state
        self.text = text
        self.textProfile = textProfile
        self.vectorProfile = vectorProfile
        self.vector = vector
    }

    /// The plaintext P of §6.4.
    package var plaintext: [UInt8] {
        let text = Array(self.text.utf8)
        var bytes = [Self.version, UInt8(state.rawValue), UInt8(text.count >> 8), UInt8(text.count & 0xFF)]
        bytes += Self.bigEndian(textProfile) + Self.bigEndian(vectorProfile)
        bytes += text + [UInt8](repeating: 0, count: IndexLimits.textCap - text.count)
        bytes += vector?.stored ?? [UInt8](repeating: 0, count: IndexLimits.vectorSize)
        bytes += [UInt8](repeating: 0, count: Self.paddingSize)
        return bytes
    }

    /// Reads a plaintext P, refusing (§6.4) any length but 4,608, a version but 1, n over
    /// 3,840, flags outside 1–32, text that is not UTF-8, and padding, unused text bytes
    /// or an absent vector that are not zero.
    init(plaintext p: [UInt8]) throws {
        guard p.count == Self.plaintextSize else { throw VaultError.corrupt("index box of \(p.count) bytes") }
        guard p[0] == Self.version else { throw VaultError.corrupt("index box version \(p[0])") }
        let state = IndexState(rawValue: Int(p[1]))
        guard IndexState.outcomes.isSuperset(of: state) else { throw VaultError.corrupt("index box flags \(p[1])") }
        let n = Int(p[2]) << 8 | Int(p[3])
        guard n <= IndexLimits.textCap else { throw VaultError.corrupt("index box text of \(n) bytes") }
        let textStart = 12, vectorStart = textStart + IndexLimits.textCap, padStart = vectorStart + IndexLimits.vectorSize
        guard p[(textStart + n)..<vectorStart].allSatisfy({ $0 == 0 }), p[padStart...].allSatisfy({ $0 == 0 }) else {
            throw VaultError.corrupt("index box padding is not zero")
        }
        guard let text = String(validating: p[textStart..<(textStart + n)], as: UTF8.self) else {
            throw VaultError.corrupt("index box text is not UTF-8")
        }
        let vectorBytes = p[vectorStart..<padStart]
        let vector: IndexVector?
        if state.contains(.vectorMade) {
            guard let stored = IndexVector(stored: vectorBytes) else { throw VaultError.corrupt("index box vector is invalid") }
            vector = stored
        } else {
            guard vectorBytes.allSatisfy({ $0 == 0 }) else { throw VaultError.corrupt("index box holds a vector without flag 2") }
            vector = nil
        }
        self.init(state: state, text: text, textProfile: Self.uint32(p[4..<8]), vectorProfile: Self.uint32(p[8..<12]), vector: vector)
    }

    /// The sealed box of §6.4 for item `itemId`, under `folderKey`.
    package func sealed(folderKey: SecureBytes, itemId: String, using random: RandomSource) throws -> [UInt8] {
        try SealedBlob.seal(plaintext, key: folderKey, context: Self.context(itemId), using: random)
    }

    /// Opens item `itemId`'s box: a box of another length, or one that does not open
    /// under `folderKey` for this item, or whose plaintext breaks §6.4, is corrupt.
    package static func open(_ sealed: some Collection<UInt8>, folderKey: SecureBytes, itemId: String) throws -> IndexBox {
        guard sealed.count == sealedSize else { throw VaultError.corrupt("index box of \(sealed.count) bytes") }
        let p: [UInt8]
        do {
            p = try SealedBlob.open(sealed, key: folderKey, context: context(itemId))
        } catch {
            throw VaultError.corrupt("index box does not open")
        }
        return try IndexBox(plaintext: p)
    }

    /// §6.4: label ‖ the item id's 16 bytes.
    package static func context(_ itemId: String) -> [UInt8] { label + Vault.context(itemId) }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }
}
