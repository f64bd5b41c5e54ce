import Foundation
import ObscuraCatalog
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// The index box of a protected item (docs/FORMAT.md §6.4, "The index box"): one size,
/// and a reader that refuses every plaintext the format does not allow.
@Suite struct IndexBoxTests {
    static let key = SecureBytes(copying: [UInt8](repeating: 0x5C, count: 32))
    static let itemId = "0b0e3c1a-2f4d-4e6a-9b8c-7d6e5f4a3b2c"

    @Test func aBoxRoundTripsAndIsAlwaysOneSize() throws {
        let vector = IndexVector(quantising: Vault.testVector("box"))
        let boxes = [
            IndexBox(state: .notIndexable),
            IndexBox(state: [.textRead, .weakRead], text: "Grüße aus München", textProfile: 7),
            IndexBox(state: [.textRead, .vectorMade], text: String(repeating: "x", count: IndexLimits.textCap),
                     textProfile: 1, vectorProfile: 0x0102_0304, vector: vector),
        ]
        for box in boxes {
            #expect(box.plaintext.count == IndexBox.plaintextSize)
            let sealed = try box.sealed(folderKey: Self.key, itemId: Self.itemId, using: SystemRandom())
            #expect(sealed.count == 4636)
            #expect(try IndexBox.open(sealed, folderKey: Self.key, itemId: Self.itemId) == box)
        }
        // The layout of §6.4, byte by byte where it is fixed.
        let p = boxes[2].plaintext
        #expect(Array(p[0..<12]) == [1, 3, 0x0F, 0x00, 0, 0, 0, 1, 1, 2, 3, 4])
        #expect(Array(p[(12 + 3840)..<(12 + 3840 + 516)]) == vector.stored)
    }

    /// Each plaintext §6.4 refuses, sealed properly so that only the reader's checks stand
    /// between it and the index.
    @Test func theReaderRefusesEveryPlaintextTheFormatForbids() throws {
        let good = IndexBox(state: .textRead, text: "abc", textProfile: 1).plaintext
        func edited(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var p = good
            change(&p)
            return p
        }
        let bad: [(String, [UInt8])] = [
            ("short", Array(good.dropLast())),
            ("long", good + [0]),
            ("version 2", edited { $0[0] = 2 }),
            ("flag 64", edited { $0[1] = 64 | 1 }),
            ("flag 128", edited { $0[1] = 128 }),
            ("n over the cap", edited { $0[2] = 0x0F; $0[3] = 0x01 }),
            ("unused text byte", edited { $0[12 + 3] = 0x20 }),
            ("a vector without flag 2", edited { $0[12 + 3840 + 10] = 1 }),
            ("flag 2 without a vector", edited { $0[1] = 3 }),
            ("padding", edited { $0[$0.count - 1] = 1 }),
            ("text not UTF-8", edited { $0[12] = 0xFF }),
        ]
        for (name, plaintext) in bad {
            let sealed = try SealedBlob.seal(plaintext, key: Self.key, context: IndexBox.context(Self.itemId))
            #expect(throws: VaultError.self, "\(name)") { try IndexBox.open(sealed, folderKey: Self.key, itemId: Self.itemId) }
        }
        // The same bytes under the item's protectedMeta context do not open as an index box.
        let meta = try SealedBlob.seal(good, key: Self.key, context: Vault.context(Self.itemId))
        #expect(throws: VaultError.self) { try IndexBox.open(meta, folderKey: Self.key, itemId: Self.itemId) }
    }
}
