import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The candidate order every keyring lists in (docs/FORMAT.md §4.4).
@Suite struct KeyringItemTests {
    @Test func mostRecentFirstThenByIdAndAtMost256() {
        let key = SecureBytes(count: 32)
        let items = (0..<300).map { i in
            KeyringItem(id: KeyringItem.ID(rawValue: String(format: "%032x", 1000 - i)), key: key, confirmed: false,
                        lastUsed: UInt64(i % 100))
        }
        let ranked = KeyringItem.ranked(items)
        #expect(ranked.count == KeyringItem.candidatesMax)
        #expect(ranked.first?.lastUsed == 99)
        for (a, b) in zip(ranked, ranked.dropFirst()) {
            #expect(a.lastUsed > b.lastUsed || (a.lastUsed == b.lastUsed && a.id.rawValue < b.id.rawValue))
        }
        // The 44 left out are the least recently used.
        #expect(ranked.last?.lastUsed == 14)
    }

    @Test func idsAreRandomHex() {
        let ids = (0..<100).map { _ in KeyringItem.ID.random() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.rawValue.count == 32 && $0.rawValue.allSatisfy { "0123456789abcdef".contains($0) } })
    }
}
