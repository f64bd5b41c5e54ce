import Foundation
import ObscuraCrypto
import ObscuraStoreTestSupport
import Testing
@testable import ObscuraKeys

/// Key files for machines without a keyring (docs/FORMAT.md §4.3).
@Suite struct KeyFileTests {
    static func write(_ root: ScratchFolder, _ name: String, _ bytes: [UInt8], mode: mode_t) throws -> String {
        let path = root.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func readsTheTextOrTheRawBytes() throws {
        let root = try ScratchFolder()
        let text = try Self.write(root, "text", Array((KeyTextTests.vectorOuter + "\n").utf8), mode: 0o600)
        #expect(try KeyFile.read(text, kind: .outer) == KeyTextTests.vectorKey)
        let raw = try Self.write(root, "raw", (0..<32).map { UInt8($0) }, mode: 0o400)
        #expect(try KeyFile.read(raw, kind: .outer) == KeyTextTests.vectorKey)
        #expect(try KeyFile.read(raw, kind: .decoy) == KeyTextTests.vectorKey)
        // A text of the other kind is refused, and the message says which kind it holds.
        #expect(throws: KeyError.keyFileInvalid(path: text, wanted: .decoy, holds: .outer)) { try KeyFile.read(text, kind: .decoy) }
        #expect("\(KeyError.keyFileInvalid(path: text, wanted: .decoy, holds: .outer))"
            == "key file \(text) holds an outer key, not the decoy secret asked for; give each key its own file")
    }

    /// Security review L2: a key file reached through a symbolic link, or owned by
    /// another user, is refused.
    @Test func aSymbolicLinkOrAnotherUsersFileIsRefused() throws {
        let root = try ScratchFolder()
        let target = try Self.write(root, "target", Array(KeyTextTests.vectorOuter.utf8), mode: 0o600)
        let link = root.path + "/link"
        #expect(symlink(target, link) == 0)
        #expect(throws: KeyError.keyFileUnreadable(path: link, reason: "it is a symbolic link; name the file itself")) {
            try KeyFile.read(link, kind: .outer)
        }
        // Only root can give a file away to test the owner check.
        if geteuid() == 0 {
            #expect(chown(target, 65534, 65534) == 0)
            #expect(throws: KeyError.keyFileOwner(path: target)) { try KeyFile.read(target, kind: .outer) }
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o610, 0o601, 0o666, 0o700 | 0o040])
    func filesOthersCanReachAreRefused(mode: Int) throws {
        let root = try ScratchFolder()
        let path = try Self.write(root, "key", Array(KeyTextTests.vectorOuter.utf8), mode: mode_t(mode))
        #expect(throws: KeyError.keyFilePermissions(path: path)) { try KeyFile.read(path, kind: .outer) }
    }

    @Test func aDirectoryIsRefusedAndAMissingFileExplained() throws {
        let root = try ScratchFolder()
        let dir = root.path + "/dir"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(throws: KeyError.keyFilePermissions(path: dir)) { try KeyFile.read(dir, kind: .outer) }
        #expect(throws: KeyError.keyFileUnreadable(path: root.path + "/none", reason: "No such file or directory")) {
            try KeyFile.read(root.path + "/none", kind: .outer)
        }
    }

    @Test func otherLengthsAreNotKeys() throws {
        let root = try ScratchFolder()
        for bytes in [[UInt8](repeating: 7, count: 31), [UInt8](repeating: 7, count: 33), [UInt8](repeating: 0x41, count: 5000)] {
            let path = try Self.write(root, "key\(bytes.count)", bytes, mode: 0o600)
            #expect(throws: KeyError.keyFileInvalid(path: path, wanted: .outer, holds: nil)) { try KeyFile.read(path, kind: .outer) }
        }
    }

    @Test func keySourceFromAFileWarns() throws {
        let root = try ScratchFolder()
        let path = try Self.write(root, "key", Array(KeyTextTests.vectorDecoy.utf8), mode: 0o600)
        let loaded = try KeySource.choose(keyFile: path).load(.decoy)
        #expect(loaded.keys.count == 1)
        #expect(loaded.keys[0].key == KeyTextTests.vectorKey)
        #expect(loaded.keys[0].keyringItem == nil)
        let warning = try #require(loaded.warning)
        #expect(warning.hasPrefix("warning: the decoy secret lives in the plain file \(path)"))
        #expect(!warning.contains("000G"))
    }

    @Test func errorMessagesCarryNoKeyText() throws {
        let root = try ScratchFolder()
        let path = try Self.write(root, "key", Array(KeyTextTests.vectorOuter.utf8), mode: 0o644)
        do {
            _ = try KeyFile.read(path, kind: .outer)
            Issue.record("a 0644 key file was read")
        } catch {
            #expect("\(error)".contains("chmod 600"))
            #expect(!"\(error)".contains("000G"))
        }
    }
}
