import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// `POST /api/items/zip` end to end: the form, its refusals, and the archive itself.
@Suite struct ZipRoutesTests {
    static let formType: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The form body a page's `<form>` would post, fields in the order given.
    static func form(csrf: String?, ids: [String]) -> [UInt8] {
        let encode = { (value: String) in value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value }
        let fields = (csrf.map { ["csrf=" + encode($0)] } ?? []) + ids.map { "id=" + encode($0) }
        return Array(fields.joined(separator: "&").utf8)
    }

    /// Posts the form; the browser's `X-CSRF-Token` header is sent too, to show it does
    /// not stand in for the field.
    static func post(_ browser: Browser, csrf: String?, ids: [String], headers: HTTPFields = formType) async throws -> TestResponse {
        try await browser.send(.post, "/api/items/zip", body: form(csrf: csrf, ids: ids), headers: headers)
    }

    /// Uploads `bytes` as `name`; returns the item's id.
    static func upload(_ browser: Browser, _ bytes: [UInt8], name: String) async throws -> String {
        let response = try await browser.upload(bytes, name: name)
        try #require(response.status == .created, "\(response.status)")
        return try #require((try response.json()["item"] as? [String: Any])?["id"] as? String)
    }

    @Test func threeItemsTwoOfOneNameComeBackByteForByte() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            // Sizes across the 256 KiB chunks and 1 MiB pieces of the original's reads.
            let files: [(name: String, bytes: [UInt8])] = [
                ("same name.bin", SystemRandom().bytes(300_000)),
                ("same name.bin", SystemRandom().bytes(1000)),
                ("Ünïcode 😀 #1+2%.bin", SystemRandom().bytes((2 << 20) + 12_345)),
            ]
            var ids: [String] = []
            for file in files { ids.append(try await Self.upload(browser, file.bytes, name: file.name)) }

            let response = try await Self.post(browser, csrf: browser.csrf, ids: ids)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            #expect(response.headers[.contentDisposition] == "attachment; filename=\"Obscura-3-items.zip\"")
            #expect(response.headers[.contentLength] == String(response.body.readableBytes))
            // The middleware's headers, as on every answer.
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware<GalleryContext>.contentSecurityPolicy)

            let reader = try ZipReader(WholeArchive(bytes: response.bytes))
            #expect(reader.entries.map(\.name) == ["same name.bin", "same name (2).bin", "Ünïcode 😀 #1+2%.bin"])
            for (index, entry) in reader.entries.enumerated() {
                #expect(try reader.contents(entry) == files[index].bytes)
                #expect(entry.crc == referenceCRC32(files[index].bytes))
                // The same bytes the original route serves.
                #expect(try await browser.send(.get, "/api/items/\(ids[index])/original").bytes == files[index].bytes)
            }

            let path = ZipStreamTests.temporaryPath("route.zip")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data(response.bytes).write(to: URL(fileURLWithPath: path))
            let python = try ZipStreamTests.python(path, data: true)
            #expect(python["bad"] is NSNull)
            let hashes = (python["entries"] as? [[String: Any]])?.map { $0["sha256"] as? String }
            #expect(hashes == files.map { SHA256Hex.of($0.bytes) })
            let unzip = try runTool("/usr/bin/env", ["unzip", "-t", path])
            #expect(unzip.status == 0, "\(unzip.output)")

            // An id given twice, or by a unique prefix, is one file.
            let again = try await Self.post(browser, csrf: browser.csrf, ids: [ids[1], ids[1], String(ids[1].prefix(8))])
            #expect(try ZipReader(WholeArchive(bytes: again.bytes)).entries.map(\.name) == ["same name.bin"])
            #expect(again.headers[.contentDisposition] == "attachment; filename=\"Obscura-1-item.zip\"")
        }
    }

    @Test func theCSRFTokenMustBeAFormField() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let id = try await Self.upload(browser, SystemRandom().bytes(1000), name: "a.bin")
            let missing = try await Self.post(browser, csrf: nil, ids: [id])
            #expect(missing.status == .forbidden)
            #expect(try missing.json()["error"] as? String == "missing or wrong CSRF token")
            #expect(try await Self.post(browser, csrf: "wrong", ids: [id]).status == .forbidden)
            // Checked before anything else: an empty form is refused for its token first.
            #expect(try await Self.post(browser, csrf: nil, ids: []).status == .forbidden)
            // A form post under no-referrer says `Origin: null`; the field still holds it.
            var null = Self.formType
            null[.origin] = "null"
            #expect(try await Self.post(browser, csrf: browser.csrf, ids: [id], headers: null).status == .ok)
            var foreign = Self.formType
            foreign[.origin] = "http://evil.example"
            #expect(try await Self.post(browser, csrf: browser.csrf, ids: [id], headers: foreign).status == .forbidden)
            // Without a session: refused before the form is read.
            #expect(try await Self.post(browser.another(), csrf: browser.csrf, ids: [id]).status == .unauthorized)
        }
    }

    @Test func refusalsComeBeforeTheArchiveStarts() async throws {
        let harness = try ServerHarness()
        try await harness.test { browser in
            try await browser.createVault()
            let csrf = browser.csrf
            let open = try await Self.upload(browser, SystemRandom().bytes(1000), name: "open.bin")
            let hidden = try await Self.upload(browser, SystemRandom().bytes(1000), name: "hidden.bin")
            let folder = try await browser.send(.post, "/api/folders", json: ["path": "Private", "password": "folder pw", "allowWeak": "true"]).json()
            let folderId = try #require(folder["id"] as? String)
            #expect(try await browser.send(.post, "/api/items/move", json: ["ids": [hidden], "folder": folderId]).status == .noContent)
            // Unlocked, it is one more file.
            let unlocked = try await Self.post(browser, csrf: csrf, ids: [open, hidden])
            #expect(try ZipReader(WholeArchive(bytes: unlocked.bytes)).entries.map(\.name) == ["open.bin", "hidden.bin"])

            // Locked: the answer of /original, for it alone or among others.
            #expect(try await browser.send(.post, "/api/folders/\(folderId)/lock").status == .noContent)
            let original = try await browser.send(.get, "/api/items/\(hidden)/original")
            #expect(original.status == .notFound)
            for ids in [[hidden], [open, hidden]] {
                let locked = try await Self.post(browser, csrf: csrf, ids: ids)
                #expect(locked.status == original.status)
                #expect(locked.bytes == original.bytes)
            }

            let unknown = try await Self.post(browser, csrf: csrf, ids: [open, "00000000-0000-4000-8000-000000000000"])
            #expect(unknown.status == .notFound)
            let none = try await Self.post(browser, csrf: csrf, ids: [])
            #expect(none.status == .badRequest)
            #expect(try none.json()["error"] as? String == "no items selected")
            let many = try await Self.post(browser, csrf: csrf, ids: Array(repeating: open, count: ZipRoutes.maximumItems + 1))
            #expect(many.status == .badRequest)
            #expect(try many.json()["error"] as? String == "a ZIP holds at most 10000 items")
            #expect(try await Self.post(browser, csrf: csrf, ids: Array(repeating: open, count: ZipRoutes.maximumItems)).status == .ok)
            let huge = try await Self.post(browser, csrf: csrf, ids: [String(repeating: "a", count: ZipRoutes.maximumBodySize)])
            #expect(huge.status == .contentTooLarge)

            #expect(try await browser.send(.post, "/api/lock").status == .noContent)
            #expect(try await Self.post(browser, csrf: csrf, ids: [open]).status == .unauthorized)
        }
    }

    @Test func theFormIsReadAsURLSearchParamsWritesIt() {
        let form = ZipRoutes.parse("csrf=a%2Bb+c&id=1&id=2&csrf=other&junk&id=%E2%9C%93&id=")
        #expect(form == ZipRoutes.Form(csrf: "a+b c", ids: ["1", "2", "✓", ""]))
        #expect(ZipRoutes.parse("") == ZipRoutes.Form())
    }

    /// An original whose last chunk fails its tag: the download stops short of its
    /// length with no central directory, and the connection closes.
    @Test func aTagFailureMidStreamBreaksTheDownload() async throws {
        let harness = try ServerHarness()
        try await harness.testLive { browser, port in
            try await browser.createVault()
            let first = try await Self.upload(browser, SystemRandom().bytes(1000), name: "first.bin")
            let second = try await Self.upload(browser, SystemRandom().bytes((1 << 20) + 500_000), name: "second.bin")
            let third = try await Self.upload(browser, SystemRandom().bytes(1000), name: "third.bin")
            // The second original is the one pool file of more than a mebibyte.
            let pool = try #require(FileManager.default.enumerator(atPath: harness.root)?.compactMap { $0 as? String })
                .map { harness.root + "/" + $0 }.filter { $0.hasSuffix(".data.enc") }
            let sealed = try #require(pool.first { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) > 1 << 20 })
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: sealed))
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size - 100)
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: size - 100)
            try handle.write(contentsOf: [byte ^ 0x01])
            try handle.close()

            let form = String(decoding: Self.form(csrf: browser.csrf, ids: [first, second, third]), as: UTF8.self)
            let cookie = try #require(browser.cookie), host = browser.host
            let answer = try await Blocking.run { try RawHTTP.post(port: port, host: host, path: "/api/items/zip", cookie: cookie, form: form) }
            #expect(answer.status == 200)
            let length = try #require(answer.contentLength)
            // The first file and the first mebibyte of the second went out, then it stopped.
            #expect(answer.body.count > 1 << 20 && answer.body.count < length)
            #expect(answer.closed)
            let endSignature: [UInt8] = [0x50, 0x4B, 0x05, 0x06], centralSignature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
            #expect(!answer.body.contains(endSignature) && !answer.body.contains(centralSignature))
            // The server goes on answering.
            #expect(try await browser.send(.get, "/api/session").status == .ok)
        }
    }

    /// Opt-in (`OBSCURA_ZIP_PEAK_MB=300`): the process's peak memory while a ZIP of one
    /// original of that many MiB streams to a client that reads and drops it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OBSCURA_ZIP_PEAK_MB"] != nil))
    func peakMemoryDoesNotFollowTheFileSize() async throws {
        let mebibytes = Int(ProcessInfo.processInfo.environment["OBSCURA_ZIP_PEAK_MB"] ?? "") ?? 300
        let harness = try ServerHarness(uploadLimit: Int64(mebibytes + 1) << 20)
        try await harness.testLive { browser, port in
            try await browser.createVault()
            var bytes: [UInt8]? = SystemRandom().bytes(mebibytes << 20)
            let id = try await Self.upload(browser, bytes!, name: "large.bin")
            bytes = nil
            let form = String(decoding: Self.form(csrf: browser.csrf, ids: [id]), as: UTF8.self)
            let baseline = try PeakMemory.reset()
            let cookie = try #require(browser.cookie), host = browser.host
            let answer = try await Blocking.run {
                try RawHTTP.post(port: port, host: host, path: "/api/items/zip", cookie: cookie, form: form, keepBody: false)
            }
            let peak = try PeakMemory.read()
            #expect(answer.status == 200 && answer.received == answer.contentLength)
            print("ZIP of \(mebibytes) MiB: resident \(baseline >> 20) MiB before, peak \(peak >> 20) MiB while streaming")
            #expect(peak - baseline < 64 << 20)
        }
    }
}

/// The process's peak resident memory (Linux: VmHWM, which /proc/self/clear_refs resets).
enum PeakMemory {
    /// Resets the peak to the current resident size; returns it.
    static func reset() throws -> Int {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try read()
    }

    static func read() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return (Int(line.split(separator: " ")[1]) ?? 0) << 10
    }
}

/// A form POST over a plain socket, read to the end: what a browser's download sees,
/// including a connection that closes short of its `Content-Length`. Its calls block:
/// run them through `Blocking`, since a test that blocks one of the two threads of the
/// cooperative pool can starve the server it is waiting for.
enum RawHTTP {
    struct Failure: Error { let step: String }

    struct Answer {
        var status: Int
        var contentLength: Int?
        /// The body, when kept.
        var body: [UInt8]
        /// Body bytes received.
        var received: Int
        /// Whether the server closed the connection (rather than the read timing out).
        var closed: Bool
    }

    static func post(port: Int, host: String, path: String, cookie: String, form: String, keepBody: Bool = true) throws -> Answer {
        guard let fd = connectLoopback(port: port) else { throw Failure(step: "connect") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nOrigin: null\r\nCookie: \(cookie)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
        let sent = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == request.utf8.count else { throw Failure(step: "send") }

        var head: [UInt8] = []
        var answer = Answer(status: 0, contentLength: nil, body: [], received: 0, closed: false)
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        var headerDone = false
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { answer.closed = true; break }
            if n < 0 { break }
            var chunk = buffer[0..<n]
            if !headerDone {
                head += chunk
                guard let end = head.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                headerDone = true
                let lines = String(decoding: head[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                answer.status = Int(lines.first?.split(separator: " ")[1] ?? "") ?? 0
                for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    answer.contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
                }
                chunk = head[end.upperBound...]
                head = []
            }
            answer.received += chunk.count
            if keepBody { answer.body += chunk }
        }
        return answer
    }
}
