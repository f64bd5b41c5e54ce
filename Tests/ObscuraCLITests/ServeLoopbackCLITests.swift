import Foundation
import Testing
@testable import ObscuraServer
#if canImport(Glibc)
import Glibc
#endif

/// `obscura serve` on loopback holds 127.0.0.1 and [::1] at one port before it prints
/// its `localhost` link (docs/API.md, "Loopback"; PK2, PK21): a browser that reaches
/// `localhost` through [::1] must find this server there, not another program.
@Suite(.serialized) struct ServeLoopbackCLITests {
    /// A socket another program holds on [::1]: bound with SO_REUSEADDR, and listening or not.
    struct Squatter {
        let descriptor: Int32
        let port: Int

        init(listening: Bool) throws {
            (descriptor, port) = listening
                ? try LoopbackPort.listening(family: AF_INET6, port: 0)
                : try LoopbackPort.bound(family: AF_INET6, port: 0)
        }

        /// Whether this socket can now start listening (false: someone else listens).
        func canListen() -> Bool { listen(descriptor, 1) == 0 }
    }

    static func hasIPv6Loopback() -> Bool {
        guard let probe = try? LoopbackPort.listening(family: AF_INET6, port: 0) else { return false }
        close(probe.descriptor)
        return true
    }

    /// Starts `serve` with `arguments`, waits for its launch line, stops it; the line and
    /// the server's output.
    static func launchLine(_ cli: CLIRunner, _ arguments: [String]) throws -> (line: Substring, output: CLIRunner.Output) {
        let serving = try cli.start(["serve"] + arguments)
        let served = serving.waitForOutput("Obscura gallery: ")
        // The link is in the output read so far; the process is then stopped.
        serving.process.terminate()
        let output = serving.finish()
        #expect(served, "\(output.stderr)")
        return (try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("Obscura gallery: ") }), output)
    }

    @Test func itServesBothLoopbacksAndLinksToLocalhost() throws {
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let (link, output) = try Self.launchLine(cli, ["--port", "0"])
        #expect(link.hasPrefix("Obscura gallery: http://localhost:"), "\(link.prefix(40))")
        let ipv6 = Self.hasIPv6Loopback()
        #expect(output.stderr.contains("listening on 127.0.0.1:"))
        #expect(output.stderr.contains("listening on ::1:") == ipv6, "this machine's ::1: \(ipv6)")
    }

    /// Another program listening on [::1]:P: `--port P` is refused with no link.
    @Test func aPortHeldOnIPv6LoopbackIsRefused() throws {
        guard Self.hasIPv6Loopback() else {
            Issue.record("no IPv6 loopback on this machine: the ::1 refusal cannot be shown here")
            return
        }
        let squatter = try Squatter(listening: true)
        defer { close(squatter.descriptor) }
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let refused = try cli.run(["serve", "--port", String(squatter.port)])
        #expect(refused.code == 1)
        #expect(!refused.stdout.contains("Obscura gallery"), "\(refused.stdout)")
        #expect(refused.stderr.contains("port \(squatter.port) is in use on 127.0.0.1 or ::1"), "\(refused.stderr)")
    }

    /// Without `--port`, a default port another program holds on [::1] gives way to a
    /// free one instead of stopping the gallery (PC6).
    @Test func theDefaultPortGivesWayWhenHeld() throws {
        guard Self.hasIPv6Loopback() else {
            Issue.record("no IPv6 loopback on this machine: the ::1 case cannot be shown here")
            return
        }
        // Held by this test, or already by another program: held either way.
        let squatter = try? LoopbackPort.listening(family: AF_INET6, port: 8750)
        defer { squatter.map { _ = close($0.descriptor) } }
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let serving = try cli.start(["serve"])
        let served = serving.waitForOutput("Obscura gallery: http://localhost:")
        serving.process.terminate()
        let output = serving.finish()
        #expect(served, "\(output.stderr)")
        #expect(!output.stdout.contains("localhost:8750/"), "\(output.stdout.prefix(60))")
    }

    @Test func aPortOutOfRangeIsAUsageError() throws {
        let cli = try CLIRunner()
        let refused = try cli.run(["serve", "--port", "70000"])
        #expect(refused.code == 64)
        #expect(refused.stderr.contains("--port must be between 0 and 65535"), "\(refused.stderr)")
    }

    /// `--origin` (a reverse proxy on this computer): HTTPS and a name only, with the
    /// loopback bind only; then the printed link is the origin's.
    @Test func anOriginIsCheckedAndTheLinkNamesIt() throws {
        let cli = try CLIRunner()
        for (arguments, message) in [
            (["--origin", "http://photos.home.arpa"], "--origin is https://NAME"),
            (["--origin", "https://photos.home.arpa/gallery"], "--origin is https://NAME"),
            (["--origin", "https://photos.home.arpa", "--host", "0.0.0.0", "--insecure-lan"], "needs the loopback bind"),
        ] {
            let refused = try cli.run(["serve"] + arguments)
            #expect(refused.code == 64 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        try cli.initializeQuickly()
        let link = try Self.launchLine(cli, ["--port", "0", "--origin", "https://photos.home.arpa"]).line
        #expect(link.hasPrefix("Obscura gallery: https://photos.home.arpa/#token="), "\(link.prefix(48))")
    }

    /// Another program that has bound [::1]:P with SO_REUSEADDR but not yet listened
    /// (PK21): the gallery listens first and keeps the port, and the other program's
    /// listen fails; a request to [::1]:P reaches the gallery.
    @Test func aPortBoundButNotListenedOnIsTakenAndKept() throws {
        guard Self.hasIPv6Loopback() else {
            Issue.record("no IPv6 loopback on this machine: the ::1 case cannot be shown here")
            return
        }
        let squatter = try Squatter(listening: false)
        defer { close(squatter.descriptor) }
        let cli = try CLIRunner()
        try cli.initializeQuickly()
        let serving = try cli.start(["serve", "--port", String(squatter.port)])
        let served = serving.waitForOutput("Obscura gallery: http://localhost:\(squatter.port)/")
        let squatterListens = squatter.canListen()
        // Asked only of the gallery: a squatter that listens would never answer.
        let answer = served && !squatterListens ? Self.headers(port: squatter.port) : ""
        serving.process.terminate()
        let output = serving.finish()
        #expect(served, "\(output.stderr)")
        #expect(!squatterListens)
        #expect(answer.lowercased().contains("content-security-policy"), "\(answer)")
    }

    /// The response head of `GET /` at [::1]:`port`, with a `localhost` Host.
    static func headers(port: Int) -> String {
        let client = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.sin6_addr = in6addr_loopback
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard connected == 0 else { return "connect failed: errno \(errno)" }
        let request = Array("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self).components(separatedBy: "\r\n\r\n").first ?? ""
    }
}
