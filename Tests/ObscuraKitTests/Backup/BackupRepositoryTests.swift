import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// Issue 18: repository strings and the backup password's canonical form
/// (docs/BACKUP.md, "Repositories" and "The backup password").
@Suite struct BackupRepositoryTests {
    @Test func aRelativeLocalPathIsMadeAbsoluteAndBackendsAreKept() throws {
        #expect(try BackupRepository("backups/vault", workingDirectory: "/home/me").location == "/home/me/backups/vault")
        #expect(try BackupRepository("./repo", workingDirectory: "/srv").location == "/srv/./repo")
        #expect(try BackupRepository("/mnt/disk/repo", workingDirectory: "/home/me").location == "/mnt/disk/repo")
        for location in ["sftp:me@nas:/backups/obscura", "rest:http://127.0.0.1:8000/", "rclone:b2:bucket/obscura",
                         "s3:s3.amazonaws.com/bucket", "b2:bucket:path", "local:/mnt/repo"] {
            #expect(try BackupRepository(location, workingDirectory: "/home/me").location == location)
        }
        // The default working directory is the process's.
        #expect(try BackupRepository("repo").location == FileManager.default.currentDirectoryPath + "/repo")
        let withOptions = try BackupRepository("sftp:nas:/r", options: ["sftp.command=ssh -p 2222 nas -s sftp"])
        #expect(withOptions.arguments == ["-r", "sftp:nas:/r", "-o", "sftp.command=ssh -p 2222 nas -s sftp"])
    }

    @Test func shownHidesAPasswordInAURL() throws {
        #expect(try BackupRepository("rest:https://user:s3cret@nas.local:8000/obscura/").shown == "rest:https://user:***@nas.local:8000/obscura/")
        #expect(try BackupRepository("rest:https://:s3cret@nas/").shown == "rest:https://:***@nas/")
        // No password: shown as it is.
        for location in ["rest:https://user@nas.local:8000/", "rest:http://127.0.0.1:8000/", "sftp:me@nas:/backups", "/mnt/repo"] {
            #expect(try BackupRepository(location).shown == location)
        }
        // A password with a character a URL should have escaped is hidden all the same.
        #expect(try BackupRepository("rest:https://u:pa/ss@nas/").shown == "rest:https://u:***@nas/")
        #expect(!(try BackupRepository("rest:https://u:hunter2@h/")).shown.contains("hunter2"))
        // An "@" in the password: masked up to the last one.
        #expect(try BackupRepository("rest:http://user:p@ss@127.0.0.1:1/").shown == "rest:http://user:***@127.0.0.1:1/")
        // restic quotes the URL without its backend prefix: that form is masked too.
        let restic = Restic(repository: try BackupRepository("rest:http://user:sec ret@h:1/"), password: SecureBytes(count: 1))
        #expect(!restic.classify("Fatal: parse \"http://user:sec ret@h:1/\": invalid userinfo", "snapshots").description.contains("sec ret"))
    }

    @Test func controlCharactersAndBadOptionsAreRefused() {
        for location in ["", "repo\n-o x=y", "repo\u{0}", "tab\there", "del\u{7F}"] {
            #expect(throws: BackupError.self, "\(location.debugDescription)") { try BackupRepository(location) }
        }
        for option in ["sftp.command", "=value", "key=va\nlue", "k=\u{1B}[31m"] {
            #expect(throws: BackupError.self, "\(option.debugDescription)") { try BackupRepository("/repo", options: [option]) }
        }
        #expect(throws: BackupError.invalidRepository("the repository is empty")) { try BackupRepository("") }
        #expect(throws: BackupError.invalidRepository("option sftp.command is not key=value")) {
            try BackupRepository("/r", options: ["sftp.command"])
        }
        #expect(throws: BackupError.invalidRepository("it holds a control character")) { try BackupRepository("/r\n") }
        // An option's value may hold '=' and spaces.
        #expect(throws: Never.self) { try BackupRepository("/r", options: ["a=b=c", "sftp.command=ssh -o A=B host"]) }
    }

    static func text(_ bytes: SecureBytes) -> String { bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    @Test func canonicalPassword() {
        let canonical = "8FD93EYWZRGB7HXQAVNS"
        for typed in ["8FD93-EYWZR-GB7HX-QAVNS", "8fd93-eywzr-gb7hx-qavns", "8FD93EYWZRGB7HXQAVNS", "8fd93 eywzr gb7hx qavns",
                      "  8FD93-EYWZR-GB7HX-QAVNS\n", "\t8fd93-eywzr-gb7hx-qavns \r\n"] {
            #expect(Self.text(BackupPassword.canonical(pw(typed))) == canonical, "\(typed.debugDescription)")
        }
        // O reads as 0; I and L read as 1.
        #expect(Self.text(BackupPassword.canonical(pw("O0000-IIIII-LLLLL-11111"))) == "00000111111111111111")
        #expect(Self.text(BackupPassword.canonical(pw("o0000-iiiii-lllll-11111"))) == "00000111111111111111")
        // Anything else (a repository made by restic itself) is used as typed, less
        // surrounding white space.
        #expect(Self.text(BackupPassword.canonical(pw("  correct horse battery\n"))) == "correct horse battery")
        #expect(Self.text(BackupPassword.canonical(pw("8FD93-EYWZR-GB7HX-QAVN"))) == "8FD93-EYWZR-GB7HX-QAVN", "19 symbols")
        #expect(Self.text(BackupPassword.canonical(pw("8FD93-EYWZR-GB7HX-QAVNU"))) == "8FD93-EYWZR-GB7HX-QAVNU", "U is no Crockford symbol")
        #expect(BackupPassword.canonical(pw(" \n")).count == 0)
        // A generated password is shown in groups of five and is its own canonical form once the dashes go.
        let generated = Self.text(BackupPassword.generate())
        #expect(generated.split(separator: "-").map(\.count) == [5, 5, 5, 5])
        #expect(Self.text(BackupPassword.canonical(pw(generated))) == generated.replacingOccurrences(of: "-", with: ""))
        #expect(Self.text(BackupPassword.canonical(pw(generated.lowercased()))) == generated.replacingOccurrences(of: "-", with: ""))
    }

    @Test func passwordFiles() throws {
        let root = try TestRoot()
        let path = root.path + "/backup-password"
        try BackupPassword.createFile(path, password: pw("8FD93EYWZRGB7HXQAVNS"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "8FD93EYWZRGB7HXQAVNS\n")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(Self.text(try BackupPassword.read(path)) == "8FD93EYWZRGB7HXQAVNS")
        // Never replaced: it may open another repository.
        #expect(throws: (any Error).self) { try BackupPassword.createFile(path, password: pw("other")) }
        #expect(Self.text(try BackupPassword.read(path)) == "8FD93EYWZRGB7HXQAVNS")
        // A file typed by hand in the shown form reads as the canonical one.
        let typed = root.path + "/typed"
        try Data("8fd93-eywzr-gb7hx-qavns\n".utf8).write(to: URL(fileURLWithPath: typed))
        chmod(typed, 0o600)
        #expect(Self.text(try BackupPassword.read(typed)) == "8FD93EYWZRGB7HXQAVNS")
        // Empty, or readable by others: refused.
        let empty = root.path + "/empty"
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        chmod(empty, 0o600)
        #expect(throws: (any Error).self) { try BackupPassword.read(empty) }
        chmod(typed, 0o644)
        #expect(throws: (any Error).self) { try BackupPassword.read(typed) }
    }
}
