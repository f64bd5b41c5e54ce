import Foundation
import Testing
@testable import ObscuraServer

/// The names a server answers to beyond its bind address (docs/PHONE.md §W5.2): the TLS
/// certificate's names, bare names at the scheme's default port, and the machine's
/// addresses read again, at most every 10 seconds, when a request names none of them.
@Suite struct OriginNamesTests {
    @Test func theCertificatesNamesAreReadAsHostValues() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-san-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (cert, key) = (dir + "/cert.pem", dir + "/key.pem")
        let made = try runTool("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
            "-subj", "/CN=Photos", "-days", "1",
            "-addext", "subjectAltName=DNS:Photos.Home.Arpa,DNS:*.home.arpa,IP:10.77.0.1,IP:fd00::1"])
        #expect(made.status == 0, "\(made.output)")
        // In the certificate's order; the wildcard left out; lower case; IPv6 in brackets.
        #expect(CertificateNames.of(pemFile: cert) == ["photos.home.arpa", "10.77.0.1", "[fd00::1]"])
        #expect(CertificateNames.of(pemFile: dir + "/missing.pem").isEmpty)
        #expect(CertificateNames.linkName(certificate: ["10.77.0.1", "photos.home.arpa"], wildcard: false) == "photos.home.arpa")
        #expect(CertificateNames.linkName(certificate: ["10.77.0.1"], wildcard: false) == nil)
        #expect(CertificateNames.linkName(certificate: [], wildcard: true) == MachineNames.hostName().map { $0 + ".local" })
    }

    @Test func certificateNamesJoinAndTheDefaultPortAllowsBareNames() {
        let names = ["photos.home.arpa", "[fd00::1]"]
        let at443 = OriginMiddleware<GalleryContext>.hosts(
            bound: "0.0.0.0", port: 443, machine: ["10.0.0.5", "box.local"], certificate: names, defaultPort: 443)
        for host in ["photos.home.arpa", "photos.home.arpa:443", "[fd00::1]", "10.0.0.5", "box.local:443", "localhost"] {
            #expect(at443.contains(host), "\(host)")
        }
        #expect(!at443.contains("evil.example") && !at443.contains("evil.example:443"))
        let at8750 = OriginMiddleware<GalleryContext>.hosts(
            bound: "192.168.1.20", port: 8750, machine: [], certificate: names, defaultPort: 443)
        #expect(at8750 == ["192.168.1.20:8750", "photos.home.arpa:8750", "[fd00::1]:8750"])
    }

    @Test func theNamesAreReadAgainAtMostEveryTenSeconds() {
        final class Clock: @unchecked Sendable {
            // @unchecked: only the test's own thread touches it.
            var time: Double = 1000
            var reads = 0
        }
        let clock = Clock()
        let renewal = HostRenewal(now: { clock.time })
        #expect(renewal.renewed() == nil, "nothing to read with before the port is known")
        renewal.set {
            clock.reads += 1
            return ["10.0.0.9:8750"]
        }
        clock.time += 5
        #expect(renewal.renewed() == nil && clock.reads == 0)
        clock.time += 6
        #expect(renewal.renewed() == ["10.0.0.9:8750"] && clock.reads == 1)
        #expect(renewal.renewed() == nil && clock.reads == 1)
        clock.time += HostRenewal.interval
        #expect(renewal.renewed() != nil && clock.reads == 2)
    }
}
