import ObscuraCrypto
import ObscuraKeys

/// What a vault's commits write into block 0's passkey fields (docs/FORMAT.md §9.8): for
/// each enrolled row, the MEK sealed afresh under that row's wrap key; for each free
/// row, random bytes; and nothing at all (layout A) while no row is enrolled. Every
/// commit draws all four again, so block 0 changes wholly at each commit in either layout.
final class PasskeyFieldSealer: @unchecked Sendable {
    // @unchecked: every field is set once; the keys are read, never written, after init,
    // and the MEK is the vault's own, zeroed at lock after the catalog has closed.
    private let mek: SecureBytes
    private let wrapKeys: [SecureBytes?]
    private let directoryID: [UInt8]
    private let slotID: [UInt8]
    private let random: RandomSource

    /// A sealer for the rows' wrap keys (nil for a free row), in field order.
    init(mek: SecureBytes, wrapKeys: [SecureBytes?], directoryID: [UInt8], slotID: [UInt8], random: RandomSource) {
        precondition(wrapKeys.count == PasskeyFormat.fieldCount, "one wrap key or none per field")
        self.mek = mek
        self.wrapKeys = wrapKeys
        self.directoryID = directoryID
        self.slotID = slotID
        self.random = random
    }

    /// Whether any row is enrolled: the commits write layout B.
    var isLayoutB: Bool { wrapKeys.contains { $0 != nil } }

    /// The catalog engine's provider: the 240 bytes of the next commit's fields, or nil
    /// for layout A.
    var provider: @Sendable () throws -> [UInt8]? {
        { [self] in try fields() }
    }

    private func fields() throws -> [UInt8]? {
        guard isLayoutB else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(PasskeyFormat.fieldsLength)
        for (index, key) in wrapKeys.enumerated() {
            if let key {
                out += try PasskeyFields.seal(mek: mek, key: key, directoryID: directoryID, slotID: slotID, index: index, using: random)
            } else {
                out += random.bytes(PasskeyFormat.fieldSize)
            }
        }
        return out
    }

    /// The provider for a vault none of whose rows is enrolled: layout A, explicitly.
    static let layoutA: @Sendable () throws -> [UInt8]? = { nil }
}
