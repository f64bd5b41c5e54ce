import Foundation
import ObscuraTestSupport
import Testing

/// Export from one machine's vault directory, import into another's (a different device
/// secret), through the binary with the real 600,000 rounds.
@Suite struct ExportCLITests {
    func list(_ cli: CLIRunner, _ stdin: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let out = try cli.run(["ls", "--json", "--password-stdin"] + extra, stdin: stdin)
        #expect(out.code == 0, "\(out.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]] ?? [])
            .sorted { ($0["id"] as! String) < ($1["id"] as! String) }
    }

    @Test func exportThenImportOnAnotherMachine() throws {
        let a = try CLIRunner(), b = try CLIRunner()
        let src = a.root + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        try Data(TestImages.cameraJPEG(width: 640, height: 480, date: "2021:06:01 10:00:00", orientation: 1))
            .write(to: URL(fileURLWithPath: src + "/photo.jpg"))
        _ = try TestImages.video(in: src)
        try Data(TestImages.image("png", width: 50, height: 50)).write(to: URL(fileURLWithPath: a.root + "/secret.png"))

        try a.run(["init"])
        try a.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "vault pw\n")
        #expect(try a.run(["add", "--password-stdin", src], stdin: "vault pw\n").code == 0)
        try a.run(["folder", "create", "--protect", "--password-stdin", "--allow-weak-password", "Secret"], stdin: "vault pw\nfolder pw\n")
        #expect(try a.run(["add", "--folder", "Secret", "--password-stdin", a.root + "/secret.png"], stdin: "vault pw\nfolder pw\n").code == 0)

        let export = try a.run(["export", "--generate-password", "--password-stdin", "-o", a.root + "/v.obscura"], stdin: "vault pw\n")
        #expect(export.code == 0, "\(export.stderr)")
        let password = try #require(export.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(password.count == 23)
        #expect(export.stdout.hasSuffix("Exported 3 items to \(a.root)/v.obscura.\n"))

        try b.run(["init"])
        let wrong = try b.run(["import", "--password-stdin", a.root + "/v.obscura"], stdin: "WRONG-PASSW-ORD00-00000\n")
        #expect(wrong.code == 1 && wrong.stderr == "obscura: error: wrong export password\n")
        let imported = try b.run(["import", "--password-stdin", a.root + "/v.obscura"], stdin: password.lowercased() + "\n")
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported a vault with 3 items. It opens with its original vault password.\n")
        #expect(try b.files("data").count == 10)

        let source = try list(a, "vault pw\n"), copy = try list(b, "vault pw\n")
        #expect(source.count == 2 && copy.count == 2)
        for (s, c) in zip(source, copy) {
            for key in ["id", "name", "kind", "size", "taken_at", "folder", "width"] {
                #expect(String(describing: s[key]) == String(describing: c[key]), "\(key)")
            }
            let id = s["id"] as! String
            #expect(try a.run(["cat", "--password-stdin", id], stdin: "vault pw\n").stdout
                    == b.run(["cat", "--password-stdin", id], stdin: "vault pw\n").stdout)
        }
        // The protected folder came along and still needs its password.
        #expect(try b.run(["ls", "--password-stdin", "--folder", "Secret"], stdin: "vault pw\nwrong\n").code == 1)
        let secret = try list(b, "vault pw\nfolder pw\n", ["--folder", "Secret"])
        #expect(secret.map { $0["name"] as? String } == ["secret.png"])
        let again = try b.run(["import", "--password-stdin", a.root + "/v.obscura"], stdin: password + "\n")
        #expect(again.code == 1 && again.stderr.contains("already in the target directory"))
    }
}
