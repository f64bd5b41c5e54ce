import Foundation
import GRDB
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura-bench gallery [WORKDIR]`: the web gallery's item listing on a 100,000-item
/// catalog, in process (`Vault.itemListing`) and over HTTP (`obscura serve`, timed by
/// curl), beside `python3 -m http.server` sending the same response bytes.
///
/// The vault is built once in WORKDIR and reused: one real photo imported, then its
/// catalog row cloned with new ids and capture dates spread over ten years. Every
/// clone points at the same sealed original and thumbnail, so a thumbnail request
/// decrypts a real sealed file. (Deleting one clone would delete the shared media: this
/// vault is for measuring, not for use.)
enum GalleryBench {
    static let itemCount = 100_000
    /// A small PBKDF2 count: unlocking is measured by `obscura-bench`, not here.
    static let iterations = 1000
    static let password = "gallery bench"
    static let runs = Int(ProcessInfo.processInfo.environment["OBSCURA_BENCH_RUNS"] ?? "") ?? 50

    static func run(workdir: String?) throws {
        let work = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("obscura-bench-gallery").path
        let secrets = DeviceSecretStore(path: work + "/config/obscura/device-secret")
        let ready = work + "/vault-ready"
        if !FileManager.default.fileExists(atPath: ready) {
            try build(work: work, secrets: secrets)
            _ = FileManager.default.createFile(atPath: ready, contents: Data())
        } else {
            print("gallery: reusing the \(itemCount)-item vault in \(work)/vault")
        }
        if !FileManager.default.fileExists(atPath: work + "/index-ready") {
            try indexPictures(work: work, secrets: secrets)
            _ = FileManager.default.createFile(atPath: work + "/index-ready", contents: Data())
        }
        let deep = try inProcess(work: work, secrets: secrets)
        try overHTTP(work: work, deepCursor: deep)
    }

    // MARK: building the vault

    /// The file holding the container's outer key, which `obscura serve` is given too.
    static func keyFile(_ work: String) -> String { work + "/config/outer.key" }

    /// The container's outer key, made the first time.
    static func outerKey(_ work: String) throws -> SecureBytes {
        try FileManager.default.createDirectory(atPath: work + "/config", withIntermediateDirectories: true)
        return try KeyFile.createIfMissing(keyFile(work), kind: .outer, using: SystemRandom()) ?? KeyFile.read(keyFile(work), kind: .outer)
    }

    static func build(work: String, secrets: DeviceSecretStore) throws {
        try? FileManager.default.removeItem(atPath: work + "/vault")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let photo = work + "/photo.jpg"
        if !FileManager.default.fileExists(atPath: photo) {
            // A 12-megapixel noise-like image, so its thumbnail weighs what a camera photo's does.
            try ImportBench.shell("/usr/bin/convert", ["-size", "4000x3000", "plasma:fractal", "-quality", "85", photo])
        }
        let directory = try VaultDirectory(path: work + "/vault", deviceSecrets: secrets, outerKey: try outerKey(work), create: true)
        try directory.initialize(iterations: iterations)
        let vault = try directory.createVault(password: SecureBytes(copying: Array(password.utf8)), iterations: iterations)
        defer { vault.lock() }
        let report = try vault.importFiles([photo])
        guard let original = report.imported.first else { throw BenchError("import failed: \(report.failures)") }

        let clone = try ImportBench.seconds {
            try vault.catalog.write { db in try cloneRows(of: original.id, numbers: 1..<itemCount, of: itemCount, in: db) }
        }
        let image = try vault.catalog.image().count
        print(String(format: "gallery: built %d items in %@/vault: clone %.1f s, committed with the clone (catalog image %.1f MiB)",
                     itemCount, work, clone, Double(image) / 1_048_576))
    }

    /// Clones the item row `id` once for each of `numbers` (out of `total`), with new ids,
    /// names IMG_nnnnnnn.jpg and capture dates spread over the ten years before
    /// 2026-01-01 (about 27 a day at 100,000 items). Every clone names the same media.
    static func cloneRows(of id: String, numbers: Range<Int>, of total: Int, in db: Database) throws {
        let insert = try db.makeStatement(sql: """
            INSERT INTO item (id, kind, mediaId, thumbId, name, mimeType, size, width, height,
                orientation, duration, takenAt, importedAt, folderId, favorite, contentHash, protectedMeta)
            SELECT ?, kind, mediaId, thumbId, ?, mimeType, size, width, height,
                orientation, duration, ?, importedAt, folderId, favorite, contentHash, protectedMeta
            FROM item WHERE id = ?
            """)
        let end = 1_767_225_600.0, step = 10 * 365.25 * 86_400 / Double(total)
        for n in numbers {
            try insert.execute(arguments: [UUID().uuidString.lowercased(), String(format: "IMG_%07d.jpg", n),
                                           end - Double(n) * step, id])
        }
    }

    /// Gives every item a picture index row (migration v12) as the indexing job would:
    /// 4–40 words of photo-like text from a small vocabulary, "passport" in one item in
    /// 230, "receipt" in half, and "IMG" in one in ten (so that `q=img` matches both
    /// indexes), one text in 50 at the 3,840-byte cap.
    static func indexPictures(work: String, secrets: DeviceSecretStore) throws {
        let directory = try VaultDirectory(path: work + "/vault", deviceSecrets: secrets, outerKey: try outerKey(work))
        let vault = try directory.unlock(password: SecureBytes(copying: Array(password.utf8)))
        defer { vault.lock() }
        let words = ["total", "beach", "station", "meeting", "2024", "Straße", "café", "exit", "sale", "open", "platform",
                     "ticket", "menu", "coffee", "hotel", "room", "street", "bus", "train", "price"]
        let random = SystemRandom()
        let seconds = try ImportBench.seconds {
            try vault.catalog.write { db in
                try db.execute(sql: "INSERT INTO index_profile (kind, name) VALUES ('text', 'bench text')")
                let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM item ORDER BY rowid")
                let insert = try db.makeStatement(sql: """
                    INSERT INTO item_index (itemRowid, state, textProfile, ocrText) VALUES (?, 1, 1, ?)
                    """)
                for (n, rowid) in rowids.enumerated() {
                    var text = (0..<(4 + random.uniform(in: 0..<37))).map { _ in words[random.uniform(in: 0..<words.count)] }
                    if n % 230 == 0 { text.append("passport") }
                    if n % 2 == 0 { text.append("receipt") }
                    if n % 10 == 0 { text.append("IMG") }
                    var joined = text.joined(separator: " ")
                    if n % 50 == 1 { joined = String(String(repeating: "ticket price ", count: 300).prefix(3840)) }
                    try insert.execute(arguments: [rowid, joined])
                }
            }
        }
        print(String(format: "gallery: gave %d items a picture index row in %.1f s", itemCount, seconds))
    }

    // MARK: in process

    /// Times `Vault.itemListing` at the start and ~90,000 items in; returns the deep cursor.
    static func inProcess(work: String, secrets: DeviceSecretStore) throws -> String {
        let directory = try VaultDirectory(path: work + "/vault", deviceSecrets: secrets, outerKey: try outerKey(work))
        var vault: Vault!
        let unlock = try ImportBench.seconds { vault = try directory.unlock(password: SecureBytes(copying: Array(password.utf8))) }
        defer { vault.lock() }
        let first = try vault.itemListing(scope: .visible, limit: 200)
        guard first.total == itemCount else { throw BenchError("the vault holds \(first.total) items, not \(itemCount)") }
        // The first search for a picture's words fills the word index (docs/SEARCH.md §S5.1).
        let residentBefore = residentBytes()
        let fill = try ImportBench.seconds { _ = try vault.itemListing(scope: .visible, filter: ItemFilter(text: "passport"), limit: 200) }
        let fillMemory = Double(residentBytes() - residentBefore) / 1_048_576

        // Walk to ~90,000 items in with the app's page size after the first (500).
        var cursor = first.nextCursor, seen = first.items.count, pages = 1
        let walk = try ImportBench.seconds {
            while seen < 90_000, let c = cursor {
                let page = try vault.itemListing(scope: .visible, after: c, limit: 500)
                seen += page.items.count
                cursor = page.nextCursor
                pages += 1
            }
        }
        guard let deep = cursor else { throw BenchError("the catalog ended before 90,000 items") }
        let firstTimes = try (0..<runs).map { _ in try ImportBench.seconds { _ = try vault.itemListing(scope: .visible, limit: 200) } }
        let deepTimes = try (0..<runs).map { _ in
            try ImportBench.seconds { _ = try vault.itemListing(scope: .visible, after: deep, limit: 200) }
        }
        // What one thumbnail request does (GET /api/items/{id}/thumbnail), in its two steps,
        // and what one favourite toggle costs (one paged catalog commit).
        let id = first.items[first.items.count / 2].record.id
        let lookups = try (0..<runs).map { _ in try ImportBench.seconds { _ = try vault.item(id) } }
        let row = try vault.item(id)
        let opens = try (0..<runs).map { _ in try ImportBench.seconds { _ = try vault.thumbnail(row) } }
        let favorites = try [true, false, true, false].map { on in try ImportBench.seconds { _ = try vault.setFavorite(id, on) } }
        print("gallery: \(itemCount) items, in process (Vault.itemListing, scope .visible), \(runs) runs")
        print("  unlock (10 slots at \(iterations) rounds, catalog load and check)  \(ms(unlock))")
        print("  first search of pictures' text, filling the word index of \(itemCount) rows  \(ms(fill)), resident memory \(String(format: "%+.1f", fillMemory)) MiB")
        print("  first page, 200 items                  median \(ms(median(firstTimes)))   p95 \(ms(p95(firstTimes)))")
        print("  page of 200 after \(seen) items        median \(ms(median(deepTimes)))   p95 \(ms(p95(deepTimes)))")
        print("  Vault.item(id), as a thumbnail request   median \(ms(median(lookups)))   p95 \(ms(p95(lookups)))")
        print("  Vault.thumbnail(item): read, decrypt     median \(ms(median(opens)))   p95 \(ms(p95(opens)))")
        print("  favourite toggle (catalog commit)        median \(ms(median(favorites)))   of 4")
        print(String(format: "  walk to item %d (%d pages)            %8.1f ms, %.1f ms a page", seen, pages - 1, walk * 1000, walk * 1000 / Double(max(pages - 1, 1))))
        try searches(vault)
        return deep
    }

    /// The searches the bench times (issue 17): a rare name, a text every name holds, a
    /// kind no item has, a year, and a year with a text; each with its API query.
    static let searchCases: [(String, ItemFilter, String)] = [
        ("name, 100 matches (q=IMG_00421)", ItemFilter(text: "IMG_00421"), "q=IMG_00421"),
        ("names, every item, and pictures' text, 10,000 (q=img)", ItemFilter(text: "img"), "q=img"),
        ("pictures' text, 435 matches (q=passport)", ItemFilter(text: "passport"), "q=passport"),
        ("pictures' text, half the items (q=receipt)", ItemFilter(text: "receipt"), "q=receipt"),
        ("pictures' text, two words (q=passport rec)", ItemFilter(text: "passport rec"), "q=passport%20rec"),
        ("kind none has (kind=video)", ItemFilter(kind: .video), "kind=video"),
        ("one year (from=2020&to=2020)", ItemFilter(from: ItemFilter.period("2020")!.start, before: ItemFilter.period("2020")!.end), "from=2020&to=2020"),
        ("a year and a text (q=_004&from=2020&to=2020)", ItemFilter(from: ItemFilter.period("2020")!.start, before: ItemFilter.period("2020")!.end, text: "_004"), "q=_004&from=2020&to=2020"),
    ]

    /// First pages of ``searchCases``, and the date scrubber's months, in process.
    static func searches(_ vault: Vault) throws {
        let months = try vault.months(scope: .visible)
        let monthTimes = try (0..<runs).map { _ in try ImportBench.seconds { _ = try vault.months(scope: .visible) } }
        print("  months for the date scrubber (Vault.months), \(months.count) months   median \(ms(median(monthTimes)))   p95 \(ms(p95(monthTimes)))")
        print("  search, first page of 200 (Vault.itemListing with a filter), \(runs) runs:")
        for (label, filter, _) in searchCases {
            let page = try vault.itemListing(scope: .visible, filter: filter, limit: 200)
            let times = try (0..<runs).map { _ in try ImportBench.seconds { _ = try vault.itemListing(scope: .visible, filter: filter, limit: 200) } }
            print("    \(label), \(page.total) matches   median \(ms(median(times)))   p95 \(ms(p95(times)))")
        }
    }

    // MARK: over HTTP

    static func overHTTP(work: String, deepCursor: String) throws {
        let obscura = ProcessInfo.processInfo.environment["OBSCURA_BIN"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obscura").path
        guard FileManager.default.isExecutableFile(atPath: obscura) else { throw BenchError("no obscura binary at \(obscura)") }
        let server = try Background.start(obscura, ["--vault", work + "/vault", "serve", "--port", "0"],
                                          environment: ["XDG_CONFIG_HOME": work + "/config", "OBSCURA_OUTER_KEY_FILE": keyFile(work)], banner: "Obscura gallery: ",
                                          log: work + "/serve.log")
        defer { server.stop() }
        // The printed link carries the launch's access token in its fragment.
        let link = server.banner.trimmingCharacters(in: .whitespaces).split(separator: "#", maxSplits: 1)
        let base = String(link[0]).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let token = link.count > 1 ? String(link[1].dropFirst("token=".count)) : ""
        let jar = work + "/cookies"
        try? FileManager.default.removeItem(atPath: jar)
        let session = try curl(["-c", jar, "-X", "POST", "-H", "Content-Type: application/json",
                                "--data", "{\"token\": \"\(token)\"}", base + "/api/session"])
        guard let csrf = (try JSONSerialization.jsonObject(with: Data(session.utf8)) as? [String: Any])?["csrf"] as? String else {
            throw BenchError("no CSRF token in \(session)")
        }
        let unlocked = try curl(["-b", jar, "-c", jar, "-X", "POST", "-H", "X-CSRF-Token: " + csrf, "-H", "Content-Type: application/json",
                                 "--data", "{\"password\": \"\(password)\"}", base + "/api/unlock"])
        guard unlocked.contains("true") else { throw BenchError("unlock failed: \(unlocked)") }

        // The same response bytes, saved for python3 -m http.server.
        let files = work + "/static"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        let firstURL = base + "/api/items?limit=200"
        // A cursor is hex, a dot and a UUID: nothing to escape in a query.
        let deepURL = base + "/api/items?limit=200&cursor=" + deepCursor
        try curl(["-b", jar, "-o", files + "/first.json", firstURL])
        try curl(["-b", jar, "-o", files + "/deep.json", deepURL])
        let page = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: files + "/first.json"))) as? [String: Any]
        guard let items = page?["items"] as? [[String: Any]], let id = items.first?["id"] as? String, page?["total"] as? Int == itemCount else {
            throw BenchError("unexpected first page")
        }
        let thumbURL = base + "/api/items/" + id + "/thumbnail"
        try curl(["-b", jar, "-o", files + "/thumb.jpg", thumbURL])
        let monthsURL = base + "/api/items/months"
        try curl(["-b", jar, "-o", files + "/months.json", monthsURL])
        var searchURLs = [String]()
        for (k, (_, _, query)) in searchCases.enumerated() {
            searchURLs.append(base + "/api/items?limit=200&" + query)
            try curl(["-b", jar, "-o", files + "/search\(k).json", searchURLs[k]])
        }

        let python = try Background.start("/usr/bin/python3", ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", files, "0"],
                                          banner: "Serving HTTP on ", log: work + "/http-server.log")
        defer { python.stop() }
        guard let port = python.banner.split(separator: " ").dropFirst(2).first else { throw BenchError("no port from http.server") }
        let reference = "http://127.0.0.1:\(port)"

        // Interleaved, so that load from elsewhere on the machine falls on both alike.
        let cases: [(String, String, String)] = [
            ("GET /api/items?limit=200 (first page)", firstURL, reference + "/first.json"),
            ("GET /api/items?limit=200&cursor= (~90,000 in)", deepURL, reference + "/deep.json"),
            ("GET /api/items/{id}/thumbnail", thumbURL, reference + "/thumb.jpg"),
        ] + searchCases.enumerated().map { k, c in
            ("GET /api/items?limit=200&\(c.2) (search)", searchURLs[k], reference + "/search\(k).json")
        } + [("GET /api/items/months (date scrubber)", monthsURL, reference + "/months.json")]
        var times = Array(repeating: ([Double](), [Double]()), count: cases.count)
        for _ in 0..<runs {
            for (k, c) in cases.enumerated() {
                times[k].0.append(try timeTotal(["-b", jar, c.1]))
                times[k].1.append(try timeTotal([c.2]))
            }
        }
        let size = { (name: String) in ((try? FileManager.default.attributesOfItem(atPath: files + "/" + name)[.size]) as? Int) ?? 0 }
        print("gallery over HTTP: curl time_total (new connection each), \(runs) runs, median / p95")
        for (k, c) in cases.enumerated() {
            let bytes = size(k < 3 ? ["first.json", "deep.json", "thumb.jpg"][k] : k == cases.count - 1 ? "months.json" : "search\(k - 3).json")
            print("  \(c.0), \(bytes) bytes")
            print("    obscura serve                 median \(ms(median(times[k].0)))   p95 \(ms(p95(times[k].0)))")
            print("    python3 -m http.server        median \(ms(median(times[k].1)))   p95 \(ms(p95(times[k].1)))")
        }
        print(median(times[0].0) <= 0.020 ? "  goal: first page <= 20 ms: met" : "  goal: first page <= 20 ms: NOT met")
        let slowestSearch = (3..<(cases.count - 1)).map { median(times[$0].0) }.max() ?? 0
        print(slowestSearch <= 0.030 ? "  goal: a search's first page <= 30 ms: met" : "  goal: a search's first page <= 30 ms: NOT met")
    }

    /// The process's resident memory (Linux `/proc/self/statm`, pages of 4 KiB); 0 elsewhere.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4096 : 0
    }

    /// Runs curl and returns its standard output; throws when it fails (HTTP errors included).
    @discardableResult
    static func curl(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sS", "--fail"] + arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError("curl \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// curl's own `time_total` for one request, body discarded.
    static func timeTotal(_ arguments: [String]) throws -> Double {
        let text = try curl(["-o", "/dev/null", "-w", "%{time_total}"] + arguments)
        guard let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw BenchError("time_total: \(text)") }
        return seconds
    }

    static func ms(_ s: Double) -> String { String(format: "%7.2f ms", s * 1000) }
    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    static func p95(_ values: [Double]) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * 0.95))] }
}

/// A server process started for the benchmark, with the first stdout line that has its banner.
final class Background {
    let process = Process()
    private(set) var banner = ""

    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                      banner marker: String, log: String) throws -> Background {
        let server = Background()
        server.process.executableURL = URL(fileURLWithPath: executable)
        server.process.arguments = arguments
        server.process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let out = Pipe()
        server.process.standardOutput = out
        server.process.standardError = FileHandle(forWritingAtPath: log)
        server.process.standardInput = FileHandle.nullDevice
        try server.process.run()
        // Read until the banner line, then keep draining so the server never blocks on a full pipe.
        var buffered = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            buffered += String(decoding: data, as: UTF8.self)
            if let line = buffered.split(separator: "\n").first(where: { $0.contains(marker) }) {
                server.banner = String(line[line.range(of: marker)!.upperBound...])
                out.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
                return server
            }
        }
        server.stop()
        throw BenchError("\(executable) printed no '\(marker)' line (see \(log))")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
