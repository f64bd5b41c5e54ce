import Foundation
import Testing
@testable import ObscuraCrypto

/// docs/SECURITY.md, "Memory": no core file, not dumpable, key pages out of dumps.
@Suite struct ProcessHardeningTests {
    @Test func applyTurnsOffCoreFilesAndDumpability() {
        #expect(ProcessHardening.apply())
        #expect(ProcessHardening.isApplied)
    }

    #if os(Linux)
    @Test func keyPagesAreMarkedDontDump() throws {
        let key = SecureBytes(randomCount: 32)
        let flags = try #require(try Self.vmFlags(containing: key.baseAddress))
        #expect(flags.contains("dd"), "VmFlags: \(flags)")
        #expect(key.baseAddress % UInt(SecureBytes.pageSize) == 0)
    }

    /// The VmFlags of the mapping of this process that holds `address`.
    static func vmFlags(containing address: UInt) throws -> [String]? {
        // Read to the end: /proc files report a size of 0, which whole-file readers trust.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return fields.dropFirst().map(String.init)
            }
        }
        return nil
    }
    #endif
}
