import ObscuraCrypto
import ObscuraVectors
import Testing
@testable import ObscuraKit
@testable import ObscuraKeys

/// Runs testdata/key/ through ``KeyText`` (docs/FORMAT.md §4.3, §5).
@Suite struct KeyTextVectorTests {
    static func outcome(_ v: VectorTests.Vector) -> String {
        let kind: KeyKind = v.fields["kind"] == "decoy" ? .decoy : .outer
        do {
            let key = try KeyText.decode(SecureBytes(copying: v.body), kind: kind)
            return key.withUnsafeBytes { VectorSet.hex($0) } == v.fields["key"] ? "success" : "wrong key"
        } catch KeyError.invalidKeyText {
            return "failure"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func keyVectors() throws {
        let vectors = try VectorTests.load("key")
        #expect(vectors.count >= 12)
        #expect(vectors.contains { $0.expect == "success" } && vectors.contains { $0.expect == "failure" })
        for v in vectors { #expect(Self.outcome(v) == v.expect, "key/\(v.name)") }
    }
}
