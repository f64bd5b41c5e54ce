import Foundation
import Testing

/// The `obscura` binary turns core files off before it reads a password.
@Suite struct ProcessHardeningCLITests {
    #if os(Linux)
    @Test func aRunningCommandCannotDumpCore() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly(password: "pw")
        // `status --unlock` waits for the password on standard input: look at it then.
        let running = try cli.start(["status", "--unlock", "--password-stdin"])
        var coreLine = ""
        for _ in 0..<100 {
            let path = "/proc/\(running.process.processIdentifier)/limits"
            let limits = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readToEnd()).flatMap { $0 }
                .map { String(decoding: $0, as: UTF8.self) } ?? ""
            coreLine = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
            if coreLine.split(separator: " ").dropFirst(4).prefix(2) == ["0", "0"] { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        running.send("pw\n")
        let output = running.finish()
        #expect(coreLine.split(separator: " ").dropFirst(4).prefix(2) == ["0", "0"], "\(coreLine)")
        #expect(output.code == 0, "\(output.stderr)")
    }
    #endif
}
