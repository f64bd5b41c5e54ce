import Foundation
import ObscuraCrypto
import ObscuraTestSupport
import Testing
@testable import ObscuraCLI
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Issue #13 item 11: reading a password (terminal, `--password-stdin`, the device
/// secret) leaves no copy of it in freed memory, however long it is. A buffer that grows
/// by reallocation frees its old storage with the password still in it.
@Suite struct PasswordInputTests {
    /// A password long enough to make a growing buffer reallocate several times.
    static let length = 3000

    @Test(.enabled(if: MemoryScanner.supported, "needs /proc/self/mem (Linux)"))
    func aLongPasswordLeavesOneCopyWhileReadAndNoneAfter() throws {
        let password = SecureBytes(count: Self.length)
        password.withUnsafeMutableBytes { bytes in for i in bytes.indices { bytes[i] = UInt8.random(in: 0x21...0x7E) } }
        // A stretch from its middle: an allocator writes its own pointers over the first
        // bytes of a block it frees, and the stretch must survive that to be found.
        let probe = MemoryScanner.MaskedSecret(count: 512) { body in
            password.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[200..<712])) }
        }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        // All but the newline now: the reader blocks with the whole password read.
        #expect(password.withUnsafeBytes { write(fds[1], $0.baseAddress!, $0.count) } == Self.length)
        password.zeroize()

        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var line: SecureBytes?
        let input = fds[0]
        Thread.detachNewThread {
            line = Terminal.readLine(fd: input)
            done.signal()
        }
        // Wait until the reader has taken every byte from the pipe.
        var readable = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        while poll(&readable, 1, 0) > 0 { usleep(10_000) }
        usleep(50_000)
        let whileReading = MemoryScanner.find(probe)
        #expect(whileReading.hits.count == 1, "only the reader's own buffer holds it: \(whileReading.hits)")

        _ = write(fds[1], "\n", 1)
        close(fds[1])
        done.wait()
        close(fds[0])
        let read = try #require(line)
        #expect(read.count == Self.length)
        read.zeroize()
        let after = MemoryScanner.find(probe)
        #expect(after.hits.isEmpty, "copies left after the password was used and zeroed: \(after.hits)")
    }
}
