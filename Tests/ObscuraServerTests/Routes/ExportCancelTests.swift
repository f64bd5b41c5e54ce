import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// A browser that cancels an export download mid-stream: the server stops sealing,
/// keeps answering, and leaves nothing behind.
@Suite struct ExportCancelTests {
    @Test func aClientThatDisconnectsMidExportLeavesTheServerRunning() async throws {
        let harness = try ServerHarness()
        try await harness.testLive { browser, port in
            try await browser.createVault()
            // 24 MiB of media: far more than the socket buffers and the pipe hold.
            for index in 0..<3 {
                let upload = try await browser.upload(SystemRandom().bytes(8 << 20), name: "noise-\(index).bin")
                #expect(upload.status == .created)
            }
            let csrf = try #require(browser.csrf)
            let cookie = try #require(browser.cookie)
            for _ in 0..<3 {
                let received = try Self.startExportAndHangUp(
                    port: port, host: browser.host, cookie: cookie, form: "csrf=\(csrf)&password=export-pw&allowWeak=true", after: 256 << 10)
                #expect(received >= 256 << 10)
            }
            // Give the sealing threads time to notice; then the server still answers.
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await browser.send(.get, "/api/session").status == .ok)
            #expect(try await browser.send(.get, "/api/items").json()["total"] as? Int == 3)
            // A whole export still runs after the cancelled ones.
            let full = try Self.startExportAndHangUp(
                port: port, host: browser.host, cookie: cookie, form: "csrf=\(csrf)&password=export-pw&allowWeak=true", after: Int.max)
            #expect(full > 24 << 20)
        }
        // No partial file or temporary anywhere under the harness's root.
        let leftovers = FileManager.default.enumerator(atPath: harness.root)?.compactMap { $0 as? String }
            .filter { $0.contains("partial") || $0.contains(".tmp") } ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func aCancelledExportPipeIsReleasedCleanly() async throws {
        let harness = try ServerHarness()
        let password = SecureBytes(copying: Array("pw".utf8))
        let vault = try harness.directory.createVault(password: password, iterations: testIterations)
        defer { vault.lock() }
        let input = harness.root + "/input"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for index in 0..<3 {
            FileManager.default.createFile(atPath: input + "/noise-\(index).bin", contents: Data(SystemRandom().bytes(4 << 20)))
        }
        #expect(try vault.importFiles([input]).imported.count == 3)
        for _ in 0..<3 {
            var pipe: ExportPipe? = ExportPipe(try vault.prepareExport(password: password, iterations: testIterations))
            #expect(try await pipe?.next() != nil)
            // The client goes away with pieces still queued; the pipe is then dropped.
            pipe?.cancel()
            pipe = nil
        }
        // The sealing threads notice, end, and release their pipes: with a dispatch
        // semaphore below its initial value, libdispatch traps right here.
        try await Task.sleep(for: .milliseconds(500))
    }

    /// POSTs the export form over a plain socket, reads until `after` bytes came (or the
    /// end), then closes the connection; returns the bytes read.
    static func startExportAndHangUp(port: Int, host: String, cookie: String, form: String, after: Int) throws -> Int {
        let fd = try #require(connectLoopback(port: port))
        defer { close(fd) }
        let request = "POST /api/export HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\nCookie: \(cookie)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
        let sent = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        try #require(sent == request.utf8.count)
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while total < after {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            total += n
        }
        return total
    }
}
