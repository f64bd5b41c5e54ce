#if os(Linux)
import Foundation
@testable import ObscuraKeys
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraStore

/// ``SecretServiceKeyring`` against a real gnome-keyring-daemon on a private session bus
/// (``PrivateSecretService``). Serialized: the bus address is process-wide.
@Suite(.serialized) struct SecretServiceKeyringTests {
    static func key(_ byte: UInt8) -> SecureBytes { SecureBytes(copying: [UInt8](repeating: byte, count: 32)) }

    /// Runs `body` and records an issue when it took longer than `limit` seconds: every
    /// failure below must come at once, never after a prompt or a hang.
    @discardableResult
    static func quickly<T>(_ limit: Double = 3, _ body: () throws -> T) rethrows -> T {
        let start = Date()
        defer {
            let elapsed = Date().timeIntervalSince(start)
            #expect(elapsed < limit, "took \(elapsed) s")
        }
        return try body()
    }

    @Test func storeListConfirmTouchDelete() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        let keyring = SecretServiceKeyring()
        #expect(try keyring.candidates(.outer).isEmpty)

        let a = try keyring.store(Self.key(1), kind: .outer, confirmed: false)
        let b = try keyring.store(Self.key(2), kind: .outer, confirmed: true)
        let c = try keyring.store(Self.key(3), kind: .outer, confirmed: false)
        let d = try keyring.store(Self.key(4), kind: .decoy, confirmed: false)
        #expect(Set([a, b, c, d]).count == 4)
        try keyring.touch(a, kind: .outer, at: 3000)
        try keyring.touch(b, kind: .outer, at: 1000)
        try keyring.touch(c, kind: .outer, at: 2000)

        // Most recently used first; the decoy secret is not an outer key.
        var listed = try keyring.candidates(.outer)
        #expect(listed.map(\.id) == [a, c, b])
        #expect(listed.map(\.key) == [Self.key(1), Self.key(3), Self.key(2)])
        #expect(listed.map(\.confirmed) == [false, false, true])
        #expect(listed.map(\.lastUsed) == [3000, 2000, 1000])
        #expect(try keyring.candidates(.decoy).map(\.key) == [Self.key(4)])

        try keyring.markConfirmed(c, kind: .outer)
        try keyring.touch(b, kind: .outer, at: 4000)
        listed = try keyring.candidates(.outer)
        #expect(listed.map(\.id) == [b, a, c])
        #expect(listed.map(\.confirmed) == [true, false, true])

        try keyring.delete(a, kind: .outer)
        #expect(try keyring.candidates(.outer).map(\.id) == [b, c])
        #expect(throws: KeyError.keyringItemNotFound) { try keyring.delete(a, kind: .outer) }
        #expect(throws: KeyError.keyringItemNotFound) { try keyring.touch(a, kind: .outer) }
        // An id is addressed within its kind only.
        #expect(throws: KeyError.keyringItemNotFound) { try keyring.delete(d, kind: .outer) }

        // A key source over the keyring offers the same keys, in the same order.
        let loaded = try KeySource.keyring(keyring).load(.outer)
        #expect(loaded.keys.map(\.keyringItem) == [b, c])
        #expect(loaded.warning == nil)
    }

    /// Issue 40 point 10: with two keyring daemons on one store, an item the search found
    /// was gone by the time libsecret made it, and the whole look-up failed ("No such
    /// secret item at path"), so no vault opened. The item that is gone is passed over.
    @Test func anItemRemovedJustAfterTheSearchIsPassedOver() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        let keyring = SecretServiceKeyring()
        let kept = try keyring.store(Self.key(5), kind: .outer, confirmed: true)
        Self.doomed = try keyring.store(Self.key(6), kind: .outer, confirmed: true)
        defer {
            SecretServiceKeyring.setAfterSearchHook(nil)
            Self.doomed = nil
        }
        // Removed by another client (secret-tool, its own connection) after the search.
        SecretServiceKeyring.setAfterSearchHook {
            guard let id = SecretServiceKeyringTests.doomed?.rawValue else { return }
            SecretServiceKeyringTests.doomed = nil
            let clear = Process()
            clear.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
            clear.arguments = ["clear", "id", id]
            try? clear.run()
            clear.waitUntilExit()
        }
        let listed = try keyring.candidates(.outer)
        #expect(listed.map(\.id) == [kept])
        #expect(listed.map(\.key) == [Self.key(5)])
    }

    /// The item the hook above removes (the suite is serialized).
    nonisolated(unsafe) static var doomed: KeyringItem.ID?

    /// What another Secret Service client sees: the label, the schema name and the four
    /// attributes; no path, nothing else.
    @Test func itemsCarryNoPath() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        let id = try SecretServiceKeyring().store(Self.key(9), kind: .outer, confirmed: false)
        let listing = try service.secretToolSearch(schema: "org.obscura.OuterKey")
        let attributes = listing.split(separator: "\n").filter { $0.hasPrefix("attribute.") }.map(String.init)
        #expect(attributes.count == 4, "\(listing)")
        #expect(attributes.contains("attribute.id = \(id.rawValue)"))
        #expect(attributes.contains("attribute.version = 4"))
        #expect(attributes.contains("attribute.confirmed = 0"))
        #expect(attributes.contains { $0.hasPrefix("attribute.last-used = ") })
        #expect(listing.contains("schema = org.obscura.OuterKey"))
        #expect(listing.contains("label = Obscura outer key"))
        #expect(!listing.contains("/tmp"))
    }

    @Test func aLockedKeyringIsUnavailableAtOnce() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        let keyring = SecretServiceKeyring()
        let id = try keyring.store(Self.key(5), kind: .outer, confirmed: false)
        try service.lockLogin()

        Self.quickly {
            #expect(throws: KeyError.outerKeyUnavailable(.locked)) { try keyring.candidates(.outer) }
            #expect(throws: KeyError.outerKeyUnavailable(.locked)) { try KeySource.keyring(keyring).load(.outer) }
            #expect(throws: KeyError.outerKeyUnavailable(.locked)) { try keyring.store(Self.key(6), kind: .outer, confirmed: false) }
            #expect(throws: KeyError.outerKeyUnavailable(.locked)) { try keyring.markConfirmed(id, kind: .outer) }
            #expect(throws: KeyError.outerKeyUnavailable(.locked)) { try keyring.delete(id, kind: .outer) }
            // An empty kind in a locked collection: locked too, not "no key".
            #expect(throws: KeyError.decoySecretUnavailable(.locked)) { try keyring.candidates(.decoy) }
        }
    }

    @Test func noSecretServiceOnTheBusIsUnavailable() throws {
        let service = try PrivateSecretService(keyring: false)
        defer { service.stop() }
        try Self.quickly {
            for kind in KeyKind.allCases {
                do {
                    _ = try SecretServiceKeyring().candidates(kind)
                    Issue.record("a bus without a Secret Service listed keys")
                } catch let error as KeyError {
                    guard case .noKeyring = Self.unavailability(error, kind) else {
                        Issue.record("expected no keyring, got \(error)")
                        continue
                    }
                }
            }
            #expect(throws: KeyError.self) { try SecretServiceKeyring().store(Self.key(1), kind: .outer, confirmed: false) }
        }
    }

    @Test func noBusIsUnavailable() throws {
        let service = try PrivateSecretService(keyring: false)
        defer { service.stop() }
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(service.root)/no-such-bus", 1)
        try Self.quickly {
            do {
                _ = try SecretServiceKeyring().candidates(.outer)
                Issue.record("no bus, yet keys were listed")
            } catch let error as KeyError {
                guard case .noKeyring = Self.unavailability(error, .outer) else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test func aKeyringWithNoKeyOfTheKindIsUnavailableThroughAKeySource() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        try SecretServiceKeyring().store(Self.key(1), kind: .decoy, confirmed: false)
        #expect(throws: KeyError.outerKeyUnavailable(.noKey)) { try KeySource.keyring(SecretServiceKeyring()).load(.outer) }
        #expect(try KeySource.keyring(SecretServiceKeyring()).load(.decoy).keys.count == 1)
    }

    /// A daemon that holds its name but never answers (stopped with SIGSTOP) costs the
    /// keyring's deadline, not D-Bus's 25 seconds or forever.
    @Test func aHungDaemonTimesOut() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        let keyring = SecretServiceKeyring(timeoutMilliseconds: 1000)
        try keyring.store(Self.key(1), kind: .outer, confirmed: false)
        service.suspendKeyring(true)
        Self.quickly(4) {
            #expect(throws: KeyError.outerKeyUnavailable(.timedOut)) { try keyring.candidates(.outer) }
        }
        service.suspendKeyring(false)
        #expect(try keyring.candidates(.outer).count == 1)
    }

    /// The keyring's daemons come and go between tests: a later bus works after an
    /// earlier one died with a connection open on it.
    @Test func aNewBusAfterTheOldOneDied() throws {
        for round in 0..<2 {
            let service = try PrivateSecretService()
            try SecretServiceKeyring().store(Self.key(UInt8(round)), kind: .outer, confirmed: false)
            #expect(try SecretServiceKeyring().candidates(.outer).map(\.key) == [Self.key(UInt8(round))])
            service.stop()
        }
    }

    static func unavailability(_ error: KeyError, _ kind: KeyKind) -> KeyError.Unavailability? {
        switch (error, kind) {
        case let (.outerKeyUnavailable(why), .outer), let (.decoySecretUnavailable(why), .decoy): return why
        default: return nil
        }
    }

    /// Review finding: a default collection that lives in memory only would lose the
    /// outer key at logout, and every vault with it; storing there is refused.
    @Test func theInMemorySessionCollectionIsRefused() throws {
        let service = try PrivateSecretService()
        defer { service.stop() }
        try service.makeSessionCollectionDefault()
        let keyring = SecretServiceKeyring()
        do {
            _ = try keyring.store(Self.key(7), kind: .outer, confirmed: false)
            Issue.record("a key was stored in the session collection")
        } catch let KeyError.keyringFailed(why) {
            #expect(why.contains("session collection"), "\(why)")
        }
        #expect(try keyring.candidates(.outer).isEmpty)
    }
}
#endif
