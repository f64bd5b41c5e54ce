import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Searches this process's readable memory (every mapping in /proc/self/maps: heap,
/// anonymous maps, thread stacks, library data) for a secret, without the search itself
/// ever holding a copy of it: the test keeps the secret XORed with a random pad, and the
/// scanner recombines one byte at a time while comparing.
///
/// Memory is read through /proc/self/mem, which reports unmapped or unreadable pages as
/// an error instead of faulting, so mappings that other threads change during the scan
/// are simply skipped. The scanner's own read buffer is left out: it holds copies of the
/// memory it has just read, so it would report a secret twice. Linux only. Shared by the
/// memory hygiene tests of the library and of the command line.
public struct MemoryScanner {
    /// A secret as the test holds it: `masked[i] ^ pad[i]` is byte i.
    public struct MaskedSecret {
        public let masked: [UInt8]
        public let pad: [UInt8]

        /// Masks the bytes `body` is given, without copying them unmasked.
        public init(count: Int, _ read: ((UnsafeRawBufferPointer) -> Void) -> Void) {
            var pad = [UInt8](repeating: 0, count: count)
            for i in pad.indices { pad[i] = UInt8.random(in: 1...255) }
            var masked = [UInt8](repeating: 0, count: count)
            read { raw in for i in 0..<count { masked[i] = raw[i] ^ pad[i] } }
            self.masked = masked
            self.pad = pad
        }

        @inline(__always) public func byte(_ i: Int) -> UInt8 { masked[i] ^ pad[i] }
    }

    /// Where a match was found, and the 16 bytes that follow it there.
    public struct Hit: CustomStringConvertible {
        public var address: UInt
        public var mapping: String
        public var following: [UInt8]
        public var description: String { String(format: "0x%lx in %@", address, mapping) }
    }

    /// Every place `secret` occurs, and how many bytes were read.
    public static func find(_ secret: MaskedSecret) -> (hits: [Hit], scanned: Int) {
        #if os(Linux)
        // Read to the end by hand: /proc files report a size of 0, and a reader that trusts
        // the size stops early, missing most mappings of a process with many threads.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return ([], 0) }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try? handle.close()
        let fd = open("/proc/self/mem", O_RDONLY)
        guard fd >= 0 else { return ([], 0) }
        defer { close(fd) }
        let piece = 1 << 20, overlap = secret.masked.count - 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece + overlap, alignment: 16)
        defer { buffer.deallocate() }
        var hits = [Hit](), scanned = 0
        let first = Int32(secret.byte(0))
        let own = UInt(bitPattern: buffer.baseAddress!)..<(UInt(bitPattern: buffer.baseAddress!) + UInt(buffer.count))
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // Writable mappings only: a copy made at run time cannot be anywhere else.
            guard fields.count >= 5, fields[1].hasPrefix("rw") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            guard bounds.count == 2 else { continue }
            let name = fields.count > 5 ? fields[5...].joined(separator: " ") : "[anonymous]"
            if name == "[vvar]" || name == "[vsyscall]" { continue }
            var start = bounds[0]
            while start < bounds[1] {
                let want = Int(min(UInt(piece + overlap), bounds[1] - start))
                let got = pread(fd, buffer.baseAddress!, want, off_t(Int(bitPattern: start)))
                guard got > 0 else { break }
                scanned += min(got, piece)
                // Starts in this piece only; the overlap lets a match straddle its end.
                let base = buffer.baseAddress!
                let candidates = min(piece, got - overlap)
                var offset = 0
                while offset < candidates, let found = memchr(base + offset, first, candidates - offset) {
                    let at = base.distance(to: found)
                    if (1..<secret.masked.count).allSatisfy({ buffer[at + $0] == secret.byte($0) }) {
                        let address = start + UInt(at)
                        if own.contains(address) { offset = at + 1; continue }
                        var following = [UInt8](repeating: 0, count: 16)
                        let n = pread(fd, &following, 16, off_t(Int(bitPattern: address + UInt(secret.masked.count))))
                        hits.append(Hit(address: address, mapping: name, following: n == 16 ? following : []))
                    }
                    offset = at + 1
                }
                start += UInt(piece)
            }
        }
        return (hits, scanned)
        #else
        return ([], 0)
        #endif
    }
}

extension MemoryScanner {
    /// Whether this system exposes the process's memory as a file.
    public static var supported: Bool { FileManager.default.isReadableFile(atPath: "/proc/self/mem") }
}
