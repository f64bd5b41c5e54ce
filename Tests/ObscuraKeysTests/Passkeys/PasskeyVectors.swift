import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKeys

/// The files of testdata/passkey (docs/FORMAT.md §5, §9.8, §9.9), written by
/// tools/passkey-vectors/make.py with Python's `cryptography`, independently of this code.
enum PasskeyVectors {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testdata/passkey").path

    /// Every case of `kind` (`fields`, `assertion`, `enrol`), by name.
    static func load(_ kind: String) throws -> [(name: String, body: [String: Any])] {
        let folder = root + "/" + kind
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted().map { file in
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return (String(file.dropLast(5)), body)
        }
    }

    static func bytes(_ value: Any?) -> [UInt8]? {
        guard let hex = value as? String, hex.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    static func assertion(_ body: Any?) throws -> PasskeyAssertion {
        let fields = try #require(body as? [String: Any])
        return PasskeyAssertion(
            credentialID: try #require(bytes(fields["rawId"])), authenticatorData: try #require(bytes(fields["authenticatorData"])),
            clientDataJSON: try #require(bytes(fields["clientDataJSON"])), signature: try #require(bytes(fields["signature"])),
            userHandle: bytes(fields["userHandle"]))
    }

    /// Row i of a case: nil for a free row (`{}`).
    static func credential(_ body: Any?) throws -> PasskeyCredential? {
        let row = try #require(body as? [String: Any])
        guard let id = bytes(row["credentialId"]) else { return nil }
        let raw = try #require(bytes(row["publicKey"]))
        let key = try #require((row["alg"] as? Int) == -7 ? SignatureKey.p256(point: raw) : SignatureKey.ed25519(publicKey: raw))
        return PasskeyCredential(id: id, userHandle: try #require(bytes(row["userHandle"])), key: key,
                                 backupEligible: try #require(row["be"] as? Bool))
    }
}
