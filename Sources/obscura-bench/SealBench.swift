import Foundation
import ObscuraCrypto

/// Chunked AES-256-GCM seal throughput at several chunk sizes, beside `openssl speed`.
enum SealBench {
    static func run(megabytes: Int = 512) throws {
        let key = SecureBytes(randomCount: 32)
        print("chunked seal: \(megabytes) MiB sealed per chunk size, one core, best of 3")
        for chunkSize in [16 << 10, 64 << 10, 256 << 10, 1 << 20] {
            let header = ChunkedHeader(flags: 0, noncePrefix: [1, 2, 3, 4], chunkSize: chunkSize,
                                       totalSize: UInt64(megabytes) << 20)
            let cipher = try ChunkCipher(header: header, key: key, folderKey: nil, context: [])
            let plaintext = [UInt8](repeating: 7, count: chunkSize)
            var sealed = [UInt8](repeating: 0, count: chunkSize + header.chunkOverhead)
            var best = Double.infinity
            for _ in 0..<3 {
                let start = DispatchTime.now().uptimeNanoseconds
                try plaintext.withUnsafeBytes { raw in
                    try sealed.withUnsafeMutableBytes { out in
                        for i in 0..<(header.chunkCount - 1) { try cipher.seal(raw, index: i, into: out) }
                    }
                }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            let rate = Double(megabytes) * 1_048_576 * Double(header.chunkCount - 1) / Double(header.chunkCount) / best / 1e9
            print(String(format: "  obscura ChunkCipher.seal, %5d KiB chunks   %6.2f GB/s", chunkSize >> 10, rate))
        }
        if let openssl = opensslSpeed() {
            print("  openssl speed -evp aes-256-gcm (16 KiB blocks)   \(String(format: "%6.2f", openssl)) GB/s")
        }
    }

    /// The 16384-byte column of `openssl speed -evp aes-256-gcm`, in GB/s.
    static func opensslSpeed() -> Double? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = ["speed", "-seconds", "2", "-bytes", "16384", "-evp", "aes-256-gcm"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try? p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        // Last line: "AES-256-GCM  1234567.89k" (thousands of bytes per second).
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: { $0.hasPrefix("AES-256-GCM") }),
              let field = line.split(separator: " ").last, field.hasSuffix("k"), let k = Double(field.dropLast())
        else { return nil }
        return k * 1000 / 1e9
    }
}
