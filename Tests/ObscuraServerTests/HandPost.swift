import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ObscuraServer

/// A post written by hand on a socket (`connectLoopback`), so that a test can stall or
/// trickle its body, as a hostile sender or a slow link would.
final class HandPost: @unchecked Sendable {
    private let fd: Int32

    /// Connects and sends the request's head, announcing `length` bytes of body: a drop
    /// unless `path` and `headers` (whole header lines) say otherwise.
    init(port: Int, length: Int, path: String = DropRoutes.path, headers: [String] = ["X-Obscura-Drop: 1"]) throws {
        guard let fd = connectLoopback(port: port) else { throw HandPostError() }
        self.fd = fd
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + headers.map { $0 + "\r\n" }.joined()
            + "Content-Type: application/octet-stream\r\nContent-Length: \(length)\r\n\r\n"
        guard send(Array(head.utf8)) else { throw HandPostError() }
    }

    deinit { close(fd) }

    /// Sends `bytes`; false once the server has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// The status of the answer, once one comes within `seconds`; nil if none does.
    func status(within seconds: Double) async -> Int? {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            // A blocking wait, on a thread of its own rather than the test's pool.
            Thread.detachNewThread {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(seconds * 1000)) == 1 else { return continuation.resume(returning: nil) }
                var buffer = [UInt8](repeating: 0, count: 512)
                let n = recv(fd, &buffer, buffer.count, 0)
                let line = String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self)
                let words = line.split(separator: " ")
                continuation.resume(returning: words.count > 1 && words[0].hasPrefix("HTTP/") ? Int(words[1]) : nil)
            }
        }
    }
}

struct HandPostError: Error {}
