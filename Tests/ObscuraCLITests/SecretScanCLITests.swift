import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraKit
@testable import ObscuraStore
@testable import ObscuraKeys

/// Issue #6 item 6: every command run with the most verbose logging, and everything it
/// printed (standard output and error, logs included) searched for every secret of the
/// session: the vault, folder and export passwords (typed, generated, wrong ones), the
/// device secret and the keys the test can rebuild itself (MEK, vault KEK, folder key,
/// export KEK), as text and as hex and base64 in both cases.
@Suite struct SecretScanCLITests {
    /// The forms a secret could take in text.
    static func renderings(_ bytes: [UInt8]) -> [String] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let base64 = Data(bytes).base64EncodedString()
        return [hex, hex.uppercased(), base64, base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
                String(base64.prefix(24))]
            + (bytes.count == 32 ? [String(decoding: Crockford32.encode(SecureBytes(copying: bytes)).withUnsafeBytes { Array($0) }, as: UTF8.self)] : [])
    }

    static func bytes(_ key: SecureBytes) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    @Test func noSecretReachesOutputLogsOrErrors() throws {
        let a = try CLIRunner(), b = try CLIRunner()
        let log = ["OBSCURA_LOG_LEVEL": "trace"]
        var transcript = ""
        var commands = 1
        func run(_ cli: CLIRunner, _ args: [String], _ stdin: String = "", code: Int32 = 0) throws -> CLIRunner.Output {
            let out = try cli.run(args, stdin: stdin, environment: log)
            commands += 1
            #expect(out.code == code, "\(args): \(out.stderr)")
            transcript += out.stdout + out.stderr
            return out
        }
        let photo = a.root + "/photo.jpg"
        try Data(TestImages.image("jpg", width: 200, height: 150)).write(to: URL(fileURLWithPath: photo))
        let vaultPw = "vault-pw-Quokka-7731", newPw = "new-pw-Wombat-0442", wrongPw = "wrong-pw-Numbat-9183"
        let folderPw = "folder-pw-Bilby-5520", exportPw = "export-pw-Dingo-6604"

        // Decoys with few rounds keep every unlock fast; the vault itself is made by `create`.
        try a.initializeQuickly()
        _ = try run(a, ["init", "--verbose"])
        _ = try run(a, ["create", "--password-stdin", "--allow-weak-password"], vaultPw + "\n")
        _ = try run(a, ["add", "--password-stdin", photo], vaultPw + "\n")
        _ = try run(a, ["folder", "create", "--protect", "--password-stdin", "--allow-weak-password", "Private"], vaultPw + "\n" + folderPw + "\n")
        let listed = try run(a, ["ls", "--json", "--password-stdin"], vaultPw + "\n")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        _ = try run(a, ["get", "--password-stdin", id, "-o", a.root + "/out.jpg"], vaultPw + "\n")
        _ = try run(a, ["ls", "--password-stdin", "--folder", "Private"], vaultPw + "\n" + wrongPw + "\n", code: 1)
        _ = try run(a, ["export", "--password-stdin", "--allow-weak-password", "-o", a.root + "/typed.obscura"], vaultPw + "\n" + exportPw + "\n")
        // The generated password is printed once, on purpose: that line alone is left out.
        let generated = try a.run(["export", "--generate-password", "--password-stdin", "-o", a.root + "/gen.obscura"],
                                  stdin: vaultPw + "\n", environment: log)
        #expect(generated.code == 0)
        let lines = generated.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let shown = try #require(lines.first?.split(separator: " ").last.map(String.init))
        transcript += lines.dropFirst().joined(separator: "\n") + generated.stderr
        try b.initializeQuickly()
        _ = try run(b, ["import", "--password-stdin", a.root + "/typed.obscura"], wrongPw + "\n", code: 1)
        _ = try run(b, ["import", "--password-stdin", a.root + "/gen.obscura"], shown.lowercased() + "\n")
        _ = try run(a, ["passwd", "--password-stdin", "--allow-weak-password"], vaultPw + "\n" + newPw + "\n")
        _ = try run(a, ["status", "--password-stdin"], vaultPw + "\n", code: 1)
        _ = try run(a, ["status", "--verbose", "--password-stdin"], newPw + "\n")
        #expect(transcript.contains("unlock sweep opened a vault"), "verbose logging was on")

        // The keys, rebuilt from the files with the passwords.
        let directory = try a.openDirectory()
        let vault = try directory.unlock(password: SecureBytes(copying: Array(newPw.utf8)))
        let folder = try vault.folder(at: "Private")
        try vault.unlockFolder(folder, password: SecureBytes(copying: Array(folderPw.utf8)))
        let header = vault.header
        let kek = try PasswordKDF.deriveKey(password: SecureBytes(copying: Array(newPw.utf8)), salt: header.salt, iterations: vault.iterations)
        let exportHeader = try FileIO.read(a.root + "/typed.obscura", limit: ExportFormat.headerSize)
        let exportKek = try PasswordKDF.deriveKey(
            password: SecureBytes(copying: Array(exportPw.utf8)), salt: exportHeader[12..<44],
            iterations: Int(exportHeader.readBigEndian(UInt32.self, at: 8)))
        let secrets: [(String, [String])] = [
            ("passwords", [vaultPw, newPw, wrongPw, folderPw, exportPw, shown, shown.replacingOccurrences(of: "-", with: "")]),
            ("device secret", Self.renderings(Self.bytes(try directory.deviceSecrets.load()))),
            ("MEK", Self.renderings(Self.bytes(vault.key))),
            ("vault KEK", Self.renderings(Self.bytes(kek))),
            ("folder key", Self.renderings(Self.bytes(try #require(vault.folderKeys[folder.id])))),
            ("export KEK", Self.renderings(Self.bytes(exportKek))),
        ]
        var found = [String]()
        for (what, forms) in secrets {
            for form in forms where transcript.range(of: form, options: .caseInsensitive) != nil { found.append("\(what): \(form.prefix(6))…") }
        }
        #expect(found.isEmpty, "secrets in the output: \(found)")
        Hardening.report("memory", "secret-scan", [
            "commands": commands, "output-bytes": transcript.utf8.count, "secrets": secrets.count,
            "forms-searched": secrets.reduce(0) { $0 + $1.1.count }, "found": found.count,
        ])
    }
}
