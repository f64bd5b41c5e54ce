import Testing
@testable import ObscuraServer

/// Flat, safe and unique names for the files of a downloaded archive.
@Suite struct ZipEntryNamesTests {
    @Test func namesThatCouldLeaveTheDirectoryAreDefused() {
        let cases: [(String, String)] = [
            ("../../etc/passwd", ".._.._etc_passwd"),
            ("/absolute.jpg", "_absolute.jpg"),
            ("..\\windows\\system.ini", ".._windows_system.ini"),
            ("C:evil.exe", "C_evil.exe"),
            ("..", "__"),
            (".", "_"),
            ("", "unnamed"),
            ("line\nbreak\u{7F}.txt", "line_break_.txt"),
            ("tab\there\u{85}.txt", "tab_here_.txt"),
            ("photo\u{202E}gpj.exe", "photo_gpj.exe"),
            ("para\u{2029}graph.txt", "para_graph.txt"),
            // Names Windows would drop a character of, or refuse (the review of issue 16).
            ("trail. ", "trail._"),
            ("dots...", "dots.._"),
            ("CON.txt", "_CON.txt"),
            ("nul", "_nul"),
            ("com7.jpg", "_com7.jpg"),
            ("CONSOLE.txt", "CONSOLE.txt"),
            // Kept: a leading dot, spaces and the characters URLs and forms encode, other
            // scripts, emoji (joiners included).
            (".hidden", ".hidden"),
            ("a+b %20#?&=.jpg", "a+b %20#?&=.jpg"),
            ("日本語 Ελληνικά.png", "日本語 Ελληνικά.png"),
            ("👨‍👩‍👧 family.heic", "👨‍👩‍👧 family.heic"),
        ]
        for (name, expected) in cases {
            #expect(ZipEntryNames.sanitized(name) == expected, "\(name.debugDescription)")
        }
    }

    @Test func longNamesAreCutToWholeCharactersKeepingTheExtension() {
        let long = String(repeating: "é", count: 200) + ".jpeg"
        let cut = ZipEntryNames.sanitized(long)
        #expect(cut.utf8.count <= ZipEntryNames.maximumLength && cut.hasSuffix("é.jpeg"))
        var names = ZipEntryNames()
        #expect(names.unique(long) == cut)
        let second = names.unique(long)
        #expect(second.hasSuffix("é (2).jpeg") && second.utf8.count <= ZipEntryNames.maximumLength)
    }

    @Test func repeatedNamesAreNumberedBeforeTheExtension() {
        var names = ZipEntryNames()
        let given = ["IMG.jpg", "IMG.jpg", "img.JPG", "IMG (2).jpg", "IMG.jpg", ".profile", ".profile", "README", "README",
                     "archive.tar.gz", "archive.tar.gz", "Cafe\u{301}.txt", "Caf\u{E9}.txt"]
        #expect(given.map { names.unique($0) } == [
            "IMG.jpg", "IMG (2).jpg", "img (3).JPG", "IMG (2) (2).jpg", "IMG (4).jpg", ".profile", ".profile (2)",
            "README", "README (2)", "archive.tar.gz", "archive.tar (2).gz", "Cafe\u{301}.txt", "Caf\u{E9} (2).txt",
        ])
    }
}
