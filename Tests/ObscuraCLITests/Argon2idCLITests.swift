import Foundation
import ObscuraKit
import Testing
@testable import ObscuraCLI

/// `--kdf argon2id` end to end, at the real default (64 MiB, 3 passes, 4 lanes): a
/// directory made with it, a vault, its protected folder and an export all open again.
@Suite struct Argon2idCLITests {
    @Test func anArgon2idVaultAndItsFolderUnlock() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["init", "--kdf", "argon2id"]).code == 0)
        // The directory's suite is fixed: a vault of the other KDF would stand out.
        let mismatched = try cli.run(["create", "--kdf", "pbkdf2", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")
        #expect(mismatched.code != 0)
        #expect(mismatched.stderr.contains("every vault of a directory shares one KDF"), "\(mismatched.stderr)")
        #expect(try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n").code == 0)

        let status = try cli.run(["status", "--json", "--password-stdin"], stdin: "pw\n")
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(json?["kdf"] as? String == "Argon2id, 64 MiB, 3 passes, 4 lanes")
        #expect(json?["iterations"] == nil)
        #expect(try cli.run(["status", "--password-stdin"], stdin: "px\n").stderr == "obscura: error: wrong password\n")

        // A folder of an Argon2id vault is Argon2id unless told otherwise.
        #expect(try cli.run(["folder", "create", "--protect", "--password-stdin", "--allow-weak-password", "Secret"],
                            stdin: "pw\nfolder pw\n").code == 0)
        let file = cli.root + "/note.txt"
        try Data("kept under Argon2id".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try cli.run(["add", "--password-stdin", "--folder", "Secret", file], stdin: "pw\nfolder pw\n").code == 0)
        #expect(try cli.run(["ls", "--password-stdin", "--folder", "Secret"], stdin: "pw\nwrong\n").stderr
                == "obscura: error: wrong folder password\n")
        let listed = try cli.run(["ls", "--json", "--password-stdin", "--folder", "Secret"], stdin: "pw\nfolder pw\n")
        #expect(listed.code == 0 && listed.stdout.contains("note.txt"), "\(listed.stderr)")

        // An export under Argon2id: its header says KDF 2 (docs/FORMAT.md §7.1).
        let export = cli.root + "/out.obscura"
        #expect(try cli.run(["export", "--password-stdin", "--allow-weak-password", "-o", export], stdin: "pw\nexport pw\n").code == 0)
        let header = Array(try Data(contentsOf: URL(fileURLWithPath: export)).prefix(12))
        #expect(Array(header[6..<12]) == [0x00, 0x02, 0x10, 0x03, 0x04, 0x00])
    }
}
