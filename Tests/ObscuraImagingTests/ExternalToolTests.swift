import Foundation
import Testing
@testable import ObscuraImaging

/// Finding helper tools (ffmpeg, ffprobe, exiftool, restic) on PATH.
@Suite struct ExternalToolTests {
    /// A tool in a PATH entry of its own (as /usr/local/bin or Homebrew's folder) is
    /// found there, before /usr/bin; one that is not executable is passed over.
    @Test func aToolInAnyPathEntryIsFound() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-path-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["first", "second"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let name = "obscura-test-tool"
        FileManager.default.createFile(atPath: root + "/first/" + name, contents: Data("#!/bin/sh\n".utf8),
                                       attributes: [.posixPermissions: 0o644])
        FileManager.default.createFile(atPath: root + "/second/" + name, contents: Data("#!/bin/sh\n".utf8),
                                       attributes: [.posixPermissions: 0o755])
        let path = "\(root)/first:\(root)/second:/usr/bin"
        #expect(ExternalTool.locate(name, searchPath: path) == root + "/second/" + name)
        #expect(ExternalTool.locate(name, searchPath: "/usr/bin:/bin") == nil)
        // A tool that only /usr/bin holds is still found, PATH or not.
        #expect(ExternalTool.locate("env", searchPath: "\(root)/first") == "/usr/bin/env")
    }

    /// An empty or relative entry (the working directory) is never searched.
    @Test func theWorkingDirectoryIsNotSearched() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-path-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        let name = "obscura-test-planted"
        FileManager.default.createFile(atPath: root + "/bin/" + name, contents: Data("#!/bin/sh\n".utf8),
                                       attributes: [.posixPermissions: 0o755])
        // The same folder named relative to the working directory (no chdir: the other
        // tests of this process share it).
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + root.dropFirst() + "/bin"
        #expect(FileManager.default.isExecutableFile(atPath: relative + "/" + name))
        #expect(ExternalTool.locate(name, searchPath: ":.:\(relative):/usr/bin") == nil)
        #expect(ExternalTool.locate(name, searchPath: root + "/bin") == root + "/bin/" + name)
    }
}
