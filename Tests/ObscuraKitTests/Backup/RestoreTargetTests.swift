import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// docs/BACKUP.md, "Restore": where a restore may put a vault directory, checked before
/// anything is read from the repository.
@Suite struct RestoreTargetTests {
    @Test func onlyANewPathOrAnEmptyDirectoryOutsideEveryVault() throws {
        let root = try TestRoot()
        let directory = try root.initialized()
        _ = directory
        let base = root.path
        #expect(try BackupEngine.checkTarget(base + "/new") == BackupConfigurationStore.canonical(base + "/new"))
        try FileManager.default.createDirectory(atPath: base + "/empty", withIntermediateDirectories: false)
        #expect(try BackupEngine.checkTarget(base + "/empty") == base + "/empty")

        try FileManager.default.createDirectory(atPath: base + "/full", withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: base + "/full/x", contents: Data([1]))
        #expect(throws: BackupError.targetNotEmpty(base + "/full")) { try BackupEngine.checkTarget(base + "/full") }
        FileManager.default.createFile(atPath: base + "/file", contents: Data([1]))
        #expect(throws: BackupError.targetNotADirectory(base + "/file", what: "a file")) { try BackupEngine.checkTarget(base + "/file") }
        // A link, even to an empty directory or to nothing, is refused before it is followed.
        symlink(base + "/empty", base + "/link")
        symlink(base + "/nowhere", base + "/dangling")
        for link in ["/link", "/dangling"] {
            #expect(throws: BackupError.targetNotADirectory(base + link, what: "a symbolic link")) { try BackupEngine.checkTarget(base + link) }
        }
        // Inside a vault directory, at any depth: every later backup would carry it.
        for inside in ["/vault/data/sub", "/vault/restored", "/vault/media/a/b"] {
            #expect(throws: BackupError.targetInsideVault(target: base + inside, vault: root.vaultPath)) {
                try BackupEngine.checkTarget(base + inside)
            }
        }
    }
}
