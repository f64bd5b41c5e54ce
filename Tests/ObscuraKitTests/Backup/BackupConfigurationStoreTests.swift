import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// Issue 18: a directory's backup set-up and the record of its last backup, kept outside
/// the vault directory (docs/BACKUP.md, "Configuration").
@Suite struct BackupConfigurationStoreTests {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    @Test func roundTripInPrivateFiles() throws {
        let root = try TestRoot()
        try FileManager.default.createDirectory(atPath: root.vaultPath, withIntermediateDirectories: true)
        let store = BackupConfigurationStore(path: root.path + "/config/obscura/backup")
        #expect(try store.load(directory: root.vaultPath) == nil)
        #expect(store.lastBackup(directory: root.vaultPath) == nil)

        let repository = try BackupRepository("sftp:me@nas:/backups", options: ["sftp.command=ssh -p 2222 me@nas -s sftp"])
        let configuration = BackupConfiguration(directory: root.vaultPath, repository: repository, password: .keyring("0123456789abcdef0123456789abcdef"), afterSeconds: 90)
        try store.save(configuration)
        #expect(try store.load(directory: root.vaultPath) == configuration)
        // The same directory by another spelling (a trailing dot, a link) finds it.
        #expect(try store.load(directory: root.vaultPath + "/.") == configuration)
        let link = root.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root.vaultPath)
        #expect(try store.load(directory: link) == configuration)
        #expect(try store.load(directory: root.path) == nil, "another directory has none")

        // One file per directory, named by its path's digest; mode 0600 in a 0700 folder.
        let files = try FileManager.default.contentsOfDirectory(atPath: store.path)
        #expect(files.count == 1 && files[0].count == 32 + ".json".count && files[0].hasSuffix(".json"), "\(files)")
        #expect(Self.mode(store.path) == 0o700)
        #expect(Self.mode(store.path + "/" + files[0]) == 0o600)
        let json = try String(contentsOfFile: store.path + "/" + files[0], encoding: .utf8)
        #expect(json.contains("\"after_seconds\" : 90") && json.contains("\"keyring\" : \"0123456789abcdef0123456789abcdef\""), "\(json)")
        #expect(json.contains("\"directory\" : \"\(BackupConfigurationStore.canonical(root.vaultPath))\""))
        #expect(json.contains("\"version\" : 1"))

        // The record of the last backup, beside it.
        let record = BackupRecord(finished: 1_700_000_000.5, succeeded: true, snapshot: "8a951138", addedBytes: 123_456, seconds: 1.25)
        try store.saveLastBackup(record, directory: root.vaultPath)
        #expect(store.lastBackup(directory: root.vaultPath) == record)
        let failed = BackupRecord(finished: 1_700_000_100, succeeded: false, seconds: 5, message: "the backup repository did not answer")
        try store.saveLastBackup(failed, directory: root.vaultPath)
        #expect(store.lastBackup(directory: root.vaultPath) == failed, "replaced")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        #expect(names.count == 2 && names[1].hasSuffix(".last.json"))
        #expect(names.allSatisfy { Self.mode(store.path + "/" + $0) == 0o600 })

        // A password file location round-trips too, and saving replaces.
        var moved = configuration
        moved.password = .file("/root/backup-password")
        moved.afterSeconds = 0
        try store.save(moved)
        #expect(try store.load(directory: root.vaultPath) == moved)
        #expect(moved.password.shown == "/root/backup-password" && configuration.password.shown == "the keyring")

        store.remove(directory: root.vaultPath)
        #expect(try store.load(directory: root.vaultPath) == nil)
        #expect(store.lastBackup(directory: root.vaultPath) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).isEmpty)
    }

    @Test func aDamagedSetUpIsAClearError() throws {
        let root = try TestRoot()
        let store = BackupConfigurationStore(path: root.path + "/backup")
        let configuration = BackupConfiguration(directory: root.path, repository: try BackupRepository("/r"), password: .file("/p"))
        try store.save(configuration)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: store.stem(for: root.path) + ".json"))
        #expect {
            try store.load(directory: root.path)
        } throws: { error in
            "\(error)".contains("cannot be read") && "\(error)".contains("obscura backup init")
        }
    }

    @Test func theDefaultStoreFollowsXDG() {
        #expect(BackupConfigurationStore.default(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).path == "/x/obscura/backup")
        #expect(BackupConfigurationStore.default(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]).path == "/h/.config/obscura/backup")
        #expect(BackupConfigurationStore.default(environment: ["HOME": "/h"]).path == "/h/.config/obscura/backup")
    }
}
