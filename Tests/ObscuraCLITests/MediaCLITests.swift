import Foundation
import ObscuraTestSupport
import Testing

/// The media commands end to end, through the binary, with the real 600,000 rounds.
@Suite struct MediaCLITests {
    func makeSources(_ cli: CLIRunner) throws -> String {
        let dir = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, width, height) in [("a.png", 64, 48), ("b.png", 48, 64)] {
            try Data(TestImages.image("png", width: width, height: height)).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        try Data("plain notes".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
        try Data().write(to: URL(fileURLWithPath: dir + "/empty.bin"))
        return dir
    }

    func items(_ cli: CLIRunner, _ stdin: String = "pw\n", folder: [String] = []) throws -> [[String: Any]] {
        let out = try cli.run(["ls", "--json", "--password-stdin"] + folder, stdin: stdin)
        #expect(out.code == 0, "\(out.stderr)")
        return try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]] ?? []
    }

    @Test func anHEVCClipGetsItsRenditionFromAddOrFromTheRenditionsCommand() throws {
        let cli = try CLIRunner()
        let dir = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let first = try TestImages.hevcVideo(in: dir, name: "first.mov", seconds: 1, width: 320, height: 240)
        let second = try TestImages.hevcVideo(in: dir, name: "second.mov", seconds: 2, width: 320, height: 240)
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")

        let add = try cli.run(["add", "--password-stdin", first], stdin: "pw\n")
        #expect(add.code == 0, "\(add.stderr)")
        #expect(add.stdout.contains("Made 1 playable copy of videos browsers cannot play."), "\(add.stdout)")
        let later = try cli.run(["add", "--password-stdin", "--no-renditions", second], stdin: "pw\n")
        #expect(later.code == 0 && !later.stdout.contains("playable"))
        var states = Dictionary(uniqueKeysWithValues: try items(cli).map { ($0["name"] as? String ?? "", $0["rendition"] as? String ?? "null") })
        #expect(states == ["first.mov": "ready", "second.mov": "pending"])

        let made = try cli.run(["renditions", "--password-stdin"], stdin: "pw\n")
        #expect(made.code == 0 && made.stdout.contains("Made 1 playable copy"), "\(made.stdout)\(made.stderr)")
        states = Dictionary(uniqueKeysWithValues: try items(cli).map { ($0["name"] as? String ?? "", $0["rendition"] as? String ?? "null") })
        #expect(states == ["first.mov": "ready", "second.mov": "ready"])
        let nothing = try cli.run(["renditions", "--password-stdin"], stdin: "pw\n")
        #expect(nothing.code == 0 && nothing.stdout.isEmpty)
        // `get` gives the original, not the rendition.
        let id = try #require(try items(cli).first { $0["name"] as? String == "first.mov" }?["id"] as? String)
        try cli.run(["get", "--password-stdin", id, "-o", cli.root + "/out.mov"], stdin: "pw\n")
        #expect(FileManager.default.contentsEqual(atPath: cli.root + "/out.mov", andPath: first))
        let verify = try cli.run(["verify", "--password-stdin"], stdin: "pw\n")
        #expect(verify.code == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func aLivePhotoIsOneItemWhoseMotionGetGives() throws {
        let cli = try CLIRunner()
        let dir = cli.root + "/src"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let identifier = "3A4B5C6D-7E8F-4901-A2B3-C4D5E6F70812"
        let still = dir + "/IMG_0300.JPG"
        try Data(TestImages.livePhotoJPEG(identifier: identifier)).write(to: URL(fileURLWithPath: still))
        let movie = try TestImages.livePhotoMovie(in: dir, identifier: identifier, name: "IMG_0300.MOV")
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")
        let add = try cli.run(["add", "--password-stdin", still, movie], stdin: "pw\n")
        #expect(add.code == 0 && add.stdout.contains("Imported 2 files") && add.stdout.contains("as 1 new item")
                && add.stdout.contains("IMG_0300.MOV is the motion of the Live Photo IMG_0300.JPG"), "\(add.stdout)\(add.stderr)")
        let listed = try items(cli)
        #expect(listed.count == 1)
        let item = try #require(listed.first)
        #expect(item["name"] as? String == "IMG_0300.JPG" && item["rendition"] as? String == "ready")
        let companion = item["companion"] as? [String: Any]
        #expect(companion?["role"] as? String == "motion" && companion?["name"] as? String == "IMG_0300.MOV")
        let movieSize = try FileManager.default.attributesOfItem(atPath: movie)[.size] as? Int
        #expect(companion?["mime_type"] as? String == "video/quicktime" && companion?["size"] as? Int == movieSize)
        let table = try cli.run(["ls", "--password-stdin"], stdin: "pw\n")
        #expect(table.stdout.contains("live") && table.stdout.contains("IMG_0300.JPG"), "\(table.stdout)")

        let id = try #require(item["id"] as? String)
        try cli.run(["get", "--password-stdin", id, "-o", cli.root + "/still.jpg"], stdin: "pw\n")
        #expect(FileManager.default.contentsEqual(atPath: cli.root + "/still.jpg", andPath: still))
        let got = try cli.run(["get", "--password-stdin", "--companion", id, "-o", cli.root + "/motion.mov"], stdin: "pw\n")
        #expect(got.code == 0, "\(got.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: cli.root + "/motion.mov", andPath: movie))
        // A photo of one file has no second one.
        let plain = dir + "/plain.png"
        try Data(TestImages.image("png", width: 8, height: 8)).write(to: URL(fileURLWithPath: plain))
        try cli.run(["add", "--password-stdin", plain], stdin: "pw\n")
        let other = try #require(try items(cli).first { $0["name"] as? String == "plain.png" }?["id"] as? String)
        let refused = try cli.run(["cat", "--password-stdin", "--companion", other], stdin: "pw\n")
        #expect(refused.code != 0 && refused.stderr.contains("no second file"), "\(refused.stderr)")
    }

    @Test func addListGetCatMoveRemoveVerify() throws {
        let cli = try CLIRunner()
        let src = try makeSources(cli)
        try cli.run(["init"])
        try cli.run(["create", "--password-stdin", "--allow-weak-password"], stdin: "pw\n")

        let add = try cli.run(["add", "--password-stdin", src], stdin: "pw\n")
        #expect(add.code == 1, "a failed file makes the batch exit 1")
        #expect(add.stdout.hasPrefix("Imported 3 files ("))
        #expect(add.stderr.contains("Failed 1 file:\n  \(src)/empty.bin: empty file\n"))
        let again = try cli.run(["add", "--password-stdin", src + "/a.png"], stdin: "pw\n")
        #expect(again.code == 0 && again.stdout.contains("Skipped 1 duplicate already in the vault:\n  \(src)/a.png"))

        let listed = try items(cli)
        #expect(listed.count == 3)
        for key in ["id", "name", "kind", "size", "taken_at", "folder"] {
            #expect(listed.allSatisfy { $0.keys.contains(key) }, "key \(key)")
        }
        let png = listed.first { $0["name"] as? String == "a.png" }!
        #expect(png["kind"] as? String == "photo" && png["width"] as? Int == 64)
        let id = png["id"] as! String

        let get = try cli.run(["get", "--password-stdin", String(id.prefix(8)), "-o", cli.root + "/out.png"], stdin: "pw\n")
        #expect(get.code == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.root + "/out.png")) == Data(contentsOf: URL(fileURLWithPath: src + "/a.png")))
        let exists = try cli.run(["get", "--password-stdin", id, "-o", cli.root + "/out.png"], stdin: "pw\n")
        #expect(exists.code == 1 && exists.stderr.contains("already exists"))
        let notes = listed.first { $0["name"] as? String == "notes.txt" }!["id"] as! String
        #expect(try cli.run(["cat", "--password-stdin", notes], stdin: "pw\n").stdout == "plain notes")

        // A protected folder: its password is the second line.
        #expect(try cli.run(["folder", "create", "--password-stdin", "--allow-weak-password", "--protect", "Secret"], stdin: "pw\nfolderpw\n").code == 0)
        // A path makes the parents it lacks (issue 40, point 17), but none through a
        // protected folder; a folder that exists is refused.
        #expect(try cli.run(["folder", "create", "--password-stdin", "Trips/2024"], stdin: "pw\n").code == 0)
        #expect(try cli.run(["folder", "create", "--password-stdin", "Trips"], stdin: "pw\n").code == 1)
        #expect(try cli.run(["folder", "create", "--password-stdin", "Secret/Inner"], stdin: "pw\n").code == 1)
        let moved = try cli.run(["mv", "--password-stdin", id, "--folder", "Secret"], stdin: "pw\nfolderpw\n")
        #expect(moved.code == 0, "\(moved.stderr)")
        #expect(try items(cli).count == 2, "a locked folder's items are not listed")
        let secretItems = try items(cli, "pw\nfolderpw\n", folder: ["--folder", "Secret"])
        #expect(secretItems.map { $0["name"] as? String } == ["a.png"])
        #expect(try cli.run(["ls", "--password-stdin", "--folder", "Secret"], stdin: "pw\nwrong\n").stderr == "obscura: error: wrong folder password\n")
        #expect(try cli.run(["get", "--password-stdin", id, "-o", cli.root + "/x"], stdin: "pw\n").code == 1)
        #expect(try cli.run(["get", "--password-stdin", "--folder", "Secret", id, "-o", cli.root + "/x"], stdin: "pw\nfolderpw\n").code == 0)

        let folders = try cli.run(["folder", "ls", "--password-stdin"], stdin: "pw\n")
        #expect(folders.stdout == "Secret  (protected)  1 item\nTrips  0 items\nTrips/2024  0 items\n")
        #expect(try cli.run(["folder", "rm", "--password-stdin", "Secret"], stdin: "pw\n").code == 1)
        #expect(try cli.run(["folder", "rm", "--password-stdin", "Trips"], stdin: "pw\n").code == 1, "it holds a folder")
        #expect(try cli.run(["folder", "rm", "--password-stdin", "Trips/2024"], stdin: "pw\n").code == 0)
        #expect(try cli.run(["folder", "rm", "--password-stdin", "Trips"], stdin: "pw\n").code == 0)

        let verify = try cli.run(["verify", "--password-stdin"], stdin: "pw\n")
        #expect(verify.code == 0)
        #expect(verify.stdout == "Verified 2 items; 0 problems.\n1 items in locked protected folders were not checked.\n")

        // Issue 17: the search, and a delete that goes to the trash first.
        let found = try cli.run(["ls", "--password-stdin", "--search", "NOTES"], stdin: "pw\n")
        #expect(found.code == 0 && found.stdout.hasSuffix("notes.txt\n") && found.stdout.split(separator: "\n").count == 1)
        #expect(try items(cli, folder: ["--kind", "photo"]).map { $0["name"] as? String } == ["b.png"])
        #expect(try items(cli, folder: ["--from", "2001", "--to", "2001-12-31"]).isEmpty)
        let badDate = try cli.run(["ls", "--password-stdin", "--from", "2024-02-30"], stdin: "pw\n")
        #expect(badDate.code != 0 && badDate.stderr.contains("--from takes a date as YYYY, YYYY-MM or YYYY-MM-DD"), "\(badDate.stderr)")

        let removed = try cli.run(["rm", "--password-stdin", notes], stdin: "pw\n")
        #expect(removed.code == 0 && removed.stdout.hasPrefix("Moved 1 item to the trash"))
        #expect(try items(cli).count == 1)
        let trash = try cli.run(["trash", "ls", "--password-stdin"], stdin: "pw\n")
        #expect(trash.stdout.hasSuffix("30 days left  notes.txt\n"), "\(trash.stdout)")
        #expect(try cli.run(["trash", "restore", "--password-stdin", notes], stdin: "pw\n").stdout == "Restored 1 item.\n")
        #expect(try items(cli).count == 2)
        #expect(try cli.run(["rm", "--password-stdin", "--now", notes], stdin: "pw\n").stdout == "Deleted 1 item for good.\n")
        let b = try #require(try items(cli).first?["id"] as? String)
        #expect(try cli.run(["rm", "--password-stdin", b], stdin: "pw\n").code == 0)
        #expect(try cli.files("media").count == 4, "b.png waits in the trash with its thumbnail")
        #expect(try cli.run(["rm", "--password-stdin", "--folder", "Secret", id], stdin: "pw\nfolderpw\n").code == 0)
        let emptied = try cli.run(["trash", "empty", "--password-stdin"], stdin: "pw\n")
        #expect(emptied.stdout == "Deleted 1 item for good.\n")
        #expect(emptied.stderr.contains("1 item stays in the trash: its protected folder is locked"), "\(emptied.stderr)")
        #expect(try items(cli).isEmpty)
        let media = try cli.files("media")
        #expect(media.count == 2, "the protected item and its thumbnail: \(media)")
    }
}
