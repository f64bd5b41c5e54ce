import Foundation
import ObscuraTestSupport
import Testing
@testable import ObscuraIndexing

/// The index role reading pictures end to end (docs/SEARCH.md §S3.4, §S2.5): the original's
/// bytes in, decoded and read inside the filtered, Landlocked worker, text out.
@Suite struct IndexerOCRTests {
    @Test func theWorkerReadsTheTextOfAPictureUnderItsFilter() throws {
        let folder = try IndexerFixtures.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        let versions = try worker.load(languages: "eng")
        #expect(versions.hasPrefix("tesseract 5"))
        let words = "Passport renewal receipt\nPlease bring this letter to the counter on Tuesday"
        for suffix in ["png", "jpg"] {
            let page = try IndexerFixtures.page(words, format: suffix, in: folder)
            let result = try page.withUnsafeBytes { try worker.read($0, mime: "image/png") }
            #expect(result.status == .done, "\(suffix)")
            for word in ["Passport", "receipt", "counter", "Tuesday"] {
                #expect(result.text.contains(word), "\(suffix): \(word) in \(result.text)")
            }
            #expect(result.confidence > 60)
        }
        let diag = try worker.diagnostics()
        #expect(diag["seccomp"] == "2")
        // The figure behind the index role's address-space limit (§S3.4.1 step 5).
        print("indexer: VmPeak \(diag["vmpeak_kib"] ?? "?") KiB, VmHWM \(diag["vmhwm_kib"] ?? "?") KiB after two pages")
    }

    @Test func whatIsNotAPictureIsNotIndexableAndTheWorkerGoesOn() throws {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        _ = try worker.load(languages: "eng")
        let text = try Array("just some words".utf8).withUnsafeBytes { try worker.read($0, mime: "text/plain") }
        #expect(text.status == .notIndexable)
        var jpeg = try TestImages.detailedJPEG(width: 800, height: 600)
        jpeg.removeLast(jpeg.count / 2)
        let cut = try jpeg.withUnsafeBytes { try worker.read($0, mime: "image/jpeg") }
        #expect(cut.status == .failed)
        #expect(cut.text.isEmpty)
        // A BMP is ImageMagick's to read in libvips: an untrusted loader, blocked here.
        let bmp = try TestImages.image("bmp", width: 64, height: 48)
        let blocked = try bmp.withUnsafeBytes { try worker.read($0, mime: "image/bmp") }
        #expect(blocked.status == .notIndexable)
        let photo = try TestImages.detailedJPEG(width: 800, height: 600)
        let read = try photo.withUnsafeBytes { try worker.read($0, mime: "image/jpeg") }
        #expect(read.status == .done)
        #expect(!worker.stopped)
    }

    @Test func textStraightOnAPhotoIsReadAfterTheSauvolaRetry() throws {
        // The first read of this picture is a blank page whose one "word" is a space, at a
        // mean confidence of 95: counted as a word, it beat the Sauvola read that finds the
        // text (the bench's photo category went from 63% to 87% of words with the fix).
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/ocr-text-on-photo.jpg")
        let photo = Array(try Data(contentsOf: fixtures))
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        _ = try worker.load(languages: "eng+deu")
        let result = try photo.withUnsafeBytes { try worker.read($0, mime: "image/jpeg") }
        #expect(result.status == .done)
        // "Delivery" and "Order" sit on the darkest blobs and are not read either way; the
        // code, the date and "deadline" are, after the retry, and nothing was before it.
        for word in ["Z17MY25DB", "18.03.1994", "deadline"] {
            #expect(result.text.contains(word), "\(word) in \(result.text)")
        }
    }

    @Test func aPDFWhoseFontIsNotEmbeddedIsReadUnderTheFilter() throws {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        _ = try worker.load(languages: "eng")
        let pdf = TestImages.pdf(["Tenancy agreement for the flat", "signed in Lisbon on the first of May"])
        let result = try pdf.withUnsafeBytes { try worker.read($0, mime: "application/pdf") }
        #expect(result.status == .done)
        for word in ["Tenancy", "agreement", "Lisbon"] {
            #expect(result.text.contains(word), "\(word) in \(result.text)")
        }
        #expect(!worker.stopped)
    }

    @Test func languagesThatAreNotInstalledAreSaidSo() throws {
        let worker = try IndexerProcess.start(role: .index, executable: IndexerFixtures.executable)
        defer { worker.stop() }
        #expect(throws: IndexerError.loadFailed(LoadStatus.unavailable.rawValue)) { _ = try worker.load(languages: "xyz") }
    }
}
