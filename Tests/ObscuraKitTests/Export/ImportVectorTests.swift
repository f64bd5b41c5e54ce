import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit

/// The importer itself (not only the vector readers) on testdata/export's files whose
/// manifest and records disagree (docs/FORMAT.md §7.3): refused as damaged, the target
/// directory unchanged, the valid file then taken in.
@Suite struct ImportVectorTests {
    @Test func aManifestNamingOneFileTwiceIsRefusedAndChangesNothing() throws {
        let vectors = try VectorTests.load("export")
        let twice = try #require(vectors.first { $0.name == "manifest_names_a_file_twice" })
        let valid = try #require(vectors.first { $0.name == "valid" })
        let root = try TestRoot(), files = try TestRoot()
        let target = try root.initialized()
        let before = try root.listing(filesOnly: true)
        let file = files.path + "/twice.obscura"
        try Data(twice.body).write(to: URL(fileURLWithPath: file))
        #expect {
            try target.importVault(from: file, password: pw(twice.fields["password"]!))
        } throws: { error in
            if case ExportError.damaged(let why) = error { return why == "the manifest names a file twice" }
            return false
        }
        #expect(try root.listing(filesOnly: true) == before, "nothing of the refused export stays")
        let good = files.path + "/valid.obscura"
        try Data(valid.body).write(to: URL(fileURLWithPath: good))
        #expect(try target.importVault(from: good, password: pw(valid.fields["password"]!)) == 1)
    }
}
