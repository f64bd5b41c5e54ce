import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The passkey fields (docs/FORMAT.md §9.8): the PRF input, the wrap key, the seal, and
/// the sweep over every field of every slot.
@Suite struct PasskeyFieldTests {
    static let directory = [UInt8](0x00..<0x10)
    static let slot = [UInt8](0x10..<0x20)

    @Test func derivedValuesMatchTheVector() throws {
        let vector = try #require(try PasskeyVectors.load("fields").first { $0.name == "open" }?.body)
        let did = try #require(PasskeyVectors.bytes(vector["directoryId"]))
        let prf = SecureBytes(copying: try #require(PasskeyVectors.bytes(vector["prf"])))
        let input = PasskeyFields.prfInput(directoryID: did)
        #expect(input == PasskeyVectors.bytes(vector["prfInput"]))
        #expect(PasskeyFields.authenticatorSalt(prfInput: input) == PasskeyVectors.bytes(vector["salt1"]))
        let key = PasskeyFields.wrapKey(prf: prf, directoryID: did, slotID: try #require(PasskeyVectors.bytes(vector["slotId"])))
        #expect(key.withUnsafeBytes { Array($0) } == PasskeyVectors.bytes(vector["wrapKey"]))
        #expect(PasskeyFields.associatedData(directoryID: did, slotID: Self.slot, index: 2) == PasskeyVectors.bytes(vector["associatedData"]))
    }

    /// Each case's fields through the sweep: the MEK of the expected field, or nothing.
    @Test func everyFieldVectorSweepsAsExpected() throws {
        let cases = try PasskeyVectors.load("fields")
        #expect(cases.count >= 7)
        for (name, body) in cases {
            let prf = SecureBytes(copying: try #require(PasskeyVectors.bytes(body["prf"])))
            let slot = PasskeySweep.Slot(slotID: try #require(PasskeyVectors.bytes(body["slotId"])), fields: PasskeyVectors.bytes(body["fields"]))
            let match = PasskeySweep.run(prf: prf, directoryID: try #require(PasskeyVectors.bytes(body["directoryId"])), slots: [slot])
            if body["expect"] as? String == "open" {
                #expect(match?.field == body["field"] as? Int, "\(name)")
                #expect(match?.mek.withUnsafeBytes { Array($0) } == PasskeyVectors.bytes(body["mek"]), "\(name)")
            } else {
                #expect(match == nil, "\(name)")
            }
        }
    }

    @Test func aSealedFieldOpensOnlyAtItsSlotDirectoryIndexAndPRF() throws {
        let prf = SecureBytes(randomCount: 32)
        let mek = SecureBytes(randomCount: 32)
        let key = PasskeyFields.wrapKey(prf: prf, directoryID: Self.directory, slotID: Self.slot)
        let field = try PasskeyFields.seal(mek: mek, key: key, directoryID: Self.directory, slotID: Self.slot, index: 1)
        #expect(field.count == PasskeyFormat.fieldSize)
        #expect(PasskeyFields.open(field: field, key: key, directoryID: Self.directory, slotID: Self.slot, index: 1) == mek)
        #expect(PasskeyFields.open(field: field, key: key, directoryID: Self.directory, slotID: Self.slot, index: 0) == nil)
        let otherSlot = [UInt8](repeating: 7, count: 16)
        let otherKey = PasskeyFields.wrapKey(prf: prf, directoryID: Self.directory, slotID: otherSlot)
        #expect(PasskeyFields.open(field: field, key: otherKey, directoryID: Self.directory, slotID: otherSlot, index: 1) == nil)
        let otherPRF = PasskeyFields.wrapKey(prf: SecureBytes(randomCount: 32), directoryID: Self.directory, slotID: Self.slot)
        #expect(PasskeyFields.open(field: field, key: otherPRF, directoryID: Self.directory, slotID: Self.slot, index: 1) == nil)
        // Two seals of one MEK share no nonce: a field is new at every commit (§9.8).
        let again = try PasskeyFields.seal(mek: mek, key: key, directoryID: Self.directory, slotID: Self.slot, index: 1)
        #expect(again.prefix(12) != field.prefix(12))
    }

    /// The work of a sweep depends only on the number of slots with a header: one wrap
    /// key and four trials per slot, whether R opens the first slot, the last, or none,
    /// and whether the other fields are sealed under other keys or random.
    @Test func theSweepDoesTheSameWorkWhateverOpens() throws {
        let prf = SecureBytes(randomCount: 32)
        let mek = SecureBytes(randomCount: 32)
        for slotCount in [10, 64] {
            let ids = (0..<slotCount).map { n in [UInt8](repeating: UInt8(n), count: 16) }
            func slots(opening target: Int?) throws -> [PasskeySweep.Slot] {
                try ids.enumerated().map { position, id in
                    var fields = SystemRandom().bytes(PasskeyFormat.fieldsLength)
                    if position == target {
                        let key = PasskeyFields.wrapKey(prf: prf, directoryID: Self.directory, slotID: id)
                        fields.replaceSubrange(120..<180, with: try PasskeyFields.seal(mek: mek, key: key, directoryID: Self.directory, slotID: id, index: 2))
                    }
                    // One slot without a readable header: never swept.
                    return PasskeySweep.Slot(slotID: id, fields: position == 3 ? nil : fields)
                }
            }
            for target in [0, slotCount - 1, nil] as [Int?] {
                let tally = PasskeySweep.Tally()
                let match = PasskeySweep.run(prf: prf, directoryID: Self.directory, slots: try slots(opening: target), tally: tally)
                #expect(tally.derivations == slotCount - 1)
                #expect(tally.trials == 4 * (slotCount - 1))
                #expect(match?.slot == target)
                #expect(match.map { $0.mek == mek } ?? (target == nil))
            }
        }
    }

    /// When two slots open (only a crafted directory can do that), the lowest slot wins,
    /// then the lowest field: every reader agrees on one vault.
    @Test func theLowestSlotThenFieldWins() throws {
        let prf = SecureBytes(randomCount: 32)
        let ids = [[UInt8](repeating: 1, count: 16), [UInt8](repeating: 2, count: 16)]
        let meks = [SecureBytes(randomCount: 32), SecureBytes(randomCount: 32)]
        let slots = try ids.enumerated().map { position, id in
            let key = PasskeyFields.wrapKey(prf: prf, directoryID: Self.directory, slotID: id)
            var fields = [UInt8]()
            for index in 0..<4 {
                fields += index >= 2 ? try PasskeyFields.seal(mek: meks[position], key: key, directoryID: Self.directory, slotID: id, index: index)
                    : SystemRandom().bytes(60)
            }
            return PasskeySweep.Slot(slotID: id, fields: fields)
        }
        let match = try #require(PasskeySweep.run(prf: prf, directoryID: Self.directory, slots: slots))
        #expect(match.slot == 0 && match.field == 2 && match.mek == meks[0])
    }
}
