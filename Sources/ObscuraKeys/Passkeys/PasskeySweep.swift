import ObscuraCrypto

/// The passkey unlock's sweep (docs/FORMAT.md §9.8, "Sweep"): one PRF output is tried
/// against every field of every slot that has a readable header, with no early return,
/// so that the work depends only on the number of such slots.
public enum PasskeySweep {
    /// One slot as the sweep sees it: its 16-byte id and block 0's bytes [136, 376), or
    /// nil when the slot has no readable header (a slot of a version 3 header is swept:
    /// its bytes never open).
    public struct Slot: Sendable {
        /// The slot's id (§8.1).
        public let slotID: [UInt8]
        /// Block 0's bytes [136, 376), or nil.
        public let fields: [UInt8]?

        /// A slot with id `slotID` whose block 0 bytes [136, 376) are `fields`.
        public init(slotID: [UInt8], fields: [UInt8]?) {
            self.slotID = slotID
            self.fields = fields
        }
    }

    /// What opened: the slot's position in the list, the field's index (its catalog
    /// row), and the MEK.
    public struct Match {
        /// Position of the slot in the list given to ``run(prf:directoryID:slots:tally:)``.
        public let slot: Int
        /// The field's index, 0 … 3.
        public let field: Int
        /// The vault's master key.
        public let mek: SecureBytes
    }

    /// Counts the sweep's work, for the tests that hold it constant.
    package final class Tally: @unchecked Sendable {
        // @unchecked: a sweep runs on one thread and a test reads the counts after it.
        /// Wrap keys derived (one per slot with fields).
        package var derivations = 0
        /// Fields tried (four per slot with fields).
        package var trials = 0
        package init() {}
    }

    /// Tries `prf` against all four fields of every slot with fields, and returns the
    /// lowest slot, then the lowest field, that opened. Every key and every other MEK
    /// found is dropped (zeroed) before it returns; `prf` is the caller's to zero.
    public static func run(prf: SecureBytes, directoryID: [UInt8], slots: [Slot]) -> Match? {
        run(prf: prf, directoryID: directoryID, slots: slots, tally: nil)
    }

    package static func run(prf: SecureBytes, directoryID: [UInt8], slots: [Slot], tally: Tally?) -> Match? {
        var found: Match?
        for (position, slot) in slots.enumerated() {
            guard let fields = slot.fields, fields.count == PasskeyFormat.fieldsLength else { continue }
            let key = PasskeyFields.wrapKey(prf: prf, directoryID: directoryID, slotID: slot.slotID)
            tally?.derivations += 1
            for index in 0..<PasskeyFormat.fieldCount {
                let start = index * PasskeyFormat.fieldSize
                let mek = PasskeyFields.open(
                    field: fields[start..<(start + PasskeyFormat.fieldSize)], key: key,
                    directoryID: directoryID, slotID: slot.slotID, index: index)
                tally?.trials += 1
                // Later matches are kept only to be released: the work stays the same.
                if let mek, found == nil { found = Match(slot: position, field: index, mek: mek) }
            }
            key.zeroize()
        }
        return found
    }
}
