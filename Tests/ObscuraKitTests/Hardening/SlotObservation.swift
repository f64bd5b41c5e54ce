import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// What someone holding a copy of a vault directory can observe about one slot file,
/// without any key: the audit's raw material (issue #6 item 7).
struct SlotObservation {
    var name: String
    var size: Double
    /// Allocated 512-byte blocks.
    var blocks: Double
    /// Access, modification, status change and birth times, in seconds with nanoseconds.
    var atime: Double, mtime: Double, ctime: Double, btime: Double
    var inode: Double
    /// Position in the directory's own listing order (readdir).
    var listingPosition: Double
    var bytes: [UInt8]

    /// Observations of every slot file in `dataPath`, through `stat(1)` (for the birth
    /// time, which Swift's Glibc module does not expose) and readdir.
    static func all(in dataPath: String) throws -> [SlotObservation] {
        var listing = [String]()
        if let dir = opendir(dataPath) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name.hasSuffix(".db.enc") && !name.hasPrefix(".") { listing.append(name) }
            }
            closedir(dir)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stat")
        process.arguments = ["--format=%n %s %b %.9X %.9Y %.9Z %.9W %i"] + listing.map { dataPath + "/" + $0 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return try text.split(separator: "\n").map { line in
            let f = line.split(separator: " ").map(String.init)
            let name = (f[0] as NSString).lastPathComponent
            let n = f[1...].map { Double($0) ?? .nan }
            return SlotObservation(
                name: name, size: n[0], blocks: n[1], atime: n[2], mtime: n[3], ctime: n[4], btime: n[5], inode: n[6],
                listingPosition: Double(listing.firstIndex(of: name) ?? -1),
                bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: f[0]))))
        }
    }
}

/// Byte statistics of a region.
enum ByteStatistics {
    /// Pearson's chi-square of the byte histogram against uniform (255 degrees of
    /// freedom: about 255 ± 23 for random bytes).
    static func chiSquare(_ bytes: ArraySlice<UInt8>) -> Double {
        guard !bytes.isEmpty else { return .nan }
        var counts = [Double](repeating: 0, count: 256)
        for b in bytes { counts[Int(b)] += 1 }
        let expected = Double(bytes.count) / 256
        return counts.reduce(0) { $0 + ($1 - expected) * ($1 - expected) / expected }
    }

    /// Shannon entropy in bits per byte.
    static func entropy(_ bytes: ArraySlice<UInt8>) -> Double {
        guard !bytes.isEmpty else { return .nan }
        var counts = [Double](repeating: 0, count: 256)
        for b in bytes { counts[Int(b)] += 1 }
        let n = Double(bytes.count)
        return counts.reduce(0) { $1 == 0 ? $0 : $0 - ($1 / n) * log2($1 / n) }
    }

    /// The mean byte value (127.5 for random bytes).
    static func mean(_ bytes: ArraySlice<UInt8>) -> Double {
        bytes.isEmpty ? .nan : bytes.reduce(0) { $0 + Double($1) } / Double(bytes.count)
    }

    /// How far the mean byte value is from 127.5, in standard errors (uniform bytes have
    /// variance (256² − 1) / 12): about N(0, 1) for random bytes of any length.
    static func meanZ(_ bytes: ArraySlice<UInt8>) -> Double {
        (mean(bytes) - 127.5) / (((256.0 * 256 - 1) / 12) / Double(bytes.count)).squareRoot()
    }

    /// How many bytes differ between `a` and `b` over their common length, plus the
    /// difference in length.
    static func changed(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let common = min(a.count, b.count)
        var n = abs(a.count - b.count)
        for i in 0..<common where a[i] != b[i] { n += 1 }
        return Double(n)
    }
}
