import Foundation
import Testing
@testable import ObscuraServer

/// `--tls-cert`: the server refuses TLS 1.0 and 1.1 and speaks 1.2 and later.
@Suite struct TLSTests {
    @Test func tlsBelow12IsRefused() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (cert, key) = (dir + "/cert.pem", dir + "/key.pem")
        #expect(try runTool("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                             "-subj", "/CN=localhost", "-days", "1"]).status == 0)
        let harness = try ServerHarness(tls: (cert, key))
        try await harness.testLive { _, port in
            // SECLEVEL=0 lets this OpenSSL offer the old versions at all.
            for version in ["-tls1", "-tls1_1"] {
                let old = try runTool("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", version,
                                                       "-cipher", "DEFAULT@SECLEVEL=0"])
                #expect(old.status != 0, "\(version) was accepted: \(old.output.suffix(400))")
            }
            let current = try runTool("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_2"])
            #expect(current.status == 0, "\(current.output.suffix(400))")
            #expect(current.output.contains("TLSv1.2"))
        }
    }
}
