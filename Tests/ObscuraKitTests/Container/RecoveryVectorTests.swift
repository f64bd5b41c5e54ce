import Foundation
import ObscuraCrypto
import ObscuraVectors
import Testing
@testable import ObscuraKit
@testable import ObscuraStore

/// testdata/recovery (docs/FORMAT.md §5, §8.8): each directory of slot files opened by
/// the container's own recovery, with the outcome the vector names;
/// tests/interop/test_container.py opens the same bytes with the Python reader.
@Suite struct RecoveryVectorTests {
    /// A case: its `case` fields and the directory holding its slot files.
    struct Case {
        var name: String
        var fields: [String: String]
        var directory: String
    }

    static func cases() throws -> [Case] {
        let root = VectorTests.root + "/recovery"
        return try FileManager.default.contentsOfDirectory(atPath: root).sorted().map { name in
            let head = try String(contentsOfFile: root + "/" + name + "/case", encoding: .utf8)
            return Case(name: name, fields: VectorTests.fields(head), directory: root + "/" + name)
        }
    }

    static func outcome(_ v: Case) -> String {
        // Recovery writes (roll forward, times): it runs on a copy.
        let directory = FileManager.default.temporaryDirectory.path + "/recovery-vector-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            let listed = (v.fields["files"] ?? "").split(separator: ",").map(String.init)
            guard Set(listed + ["case"]) == Set(try FileManager.default.contentsOfDirectory(atPath: v.directory)) else {
                return "files differ from the list"
            }
            for name in listed {
                try FileManager.default.copyItem(atPath: v.directory + "/" + name, toPath: directory + "/" + name)
            }
            let key = try OuterKey(SecureBytes(copying: VectorTests.unhex(v.fields["outer_key"])))
            let container = try SlotContainer.open(files: DiskSlotFiles(path: directory), key: key)
            let streams = try container.slots.map { "\($0.fileName):" + VectorSet.hex(SHA256Digest.hash(try container.readStream($0))) }
            return "\(container.state.sequence)" == v.fields["sequence"] && streams.joined(separator: ",") == v.fields["streams"]
                ? "success" : "wrong state"
        } catch ContainerError.rollback {
            return "rollback"
        } catch ContainerError.damaged {
            return "damaged"
        } catch ContainerError.outerKeyMismatch {
            return "outer key mismatch"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func everyRecoveryVectorHasItsOutcome() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 7)
        for v in cases {
            #expect(Self.outcome(v) == v.fields["expect"], "recovery/\(v.name)")
        }
    }
}
