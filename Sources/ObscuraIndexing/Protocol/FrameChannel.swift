#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One end of the socket pair, speaking §S3.4.3's frames. Every wait has a deadline when
/// one is given: a worker the parent has not heard from is never waited on for ever.
public struct FrameChannel: Sendable {
    /// The socket.
    public let descriptor: Int32
    /// Whether frames arriving here travel towards the parent (the parent's end).
    public let isParent: Bool

    /// Wraps `descriptor`; the caller keeps it open while the channel is used.
    public init(descriptor: Int32, isParent: Bool) {
        (self.descriptor, self.isParent) = (descriptor, isParent)
    }

    /// Sends one frame: the header, then `pieces` in order.
    public func send(_ type: FrameType, _ pieces: [UnsafeRawBufferPointer], deadline: ContinuousClock.Instant? = nil) throws {
        let length = pieces.reduce(0) { $0 + $1.count }
        try FrameHeader.encode(type, payloadLength: length).withUnsafeBytes { try write($0, deadline: deadline) }
        for piece in pieces { try write(piece, deadline: deadline) }
    }

    /// Sends one frame with `payload`.
    public func send(_ type: FrameType, _ payload: [UInt8], deadline: ContinuousClock.Instant? = nil) throws {
        try payload.withUnsafeBytes { try send(type, [$0], deadline: deadline) }
    }

    /// Receives one frame. Its length is checked against its type's maximum before the
    /// payload is allocated.
    ///
    /// - Throws: ``IndexerError/violation(_:)`` for a bad header, ``IndexerError/timedOut``
    ///   past `deadline`, ``IndexerError/stopped`` at the end of the stream.
    public func receive(deadline: ContinuousClock.Instant? = nil) throws -> (FrameType, [UInt8]) {
        var header = [UInt8](repeating: 0, count: IndexerProtocol.headerSize)
        try header.withUnsafeMutableBytes { try read(into: $0, deadline: deadline) }
        let parsed = try FrameHeader.parse(header, toParent: isParent)
        var payload = [UInt8](repeating: 0, count: parsed.payloadLength)
        try payload.withUnsafeMutableBytes { try read(into: $0, deadline: deadline) }
        return (parsed.type, payload)
    }

    private func wait(for events: Int16, deadline: ContinuousClock.Instant?) throws {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw IndexerError.timedOut }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw IndexerError.stopped }
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) throws {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), deadline: deadline)
            // MSG_NOSIGNAL: a worker that died makes EPIPE here, not a SIGPIPE that would
            // end the server. MSG_DONTWAIT: poll said there is room, not how much.
            let sent = sendNoSignal(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK {
                continue
            } else {
                throw IndexerError.stopped
            }
        }
    }

    private func read(into bytes: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLIN), deadline: deadline)
            let got = recv(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_DONTWAIT))
            if got > 0 {
                offset += got
            } else if got == 0 {
                throw IndexerError.stopped
            } else if errno != EINTR, errno != EAGAIN, errno != EWOULDBLOCK {
                throw IndexerError.stopped
            }
        }
    }
}

/// send(2) without SIGPIPE and without blocking.
private func sendNoSignal(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return send(descriptor, bytes, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    #else
    return send(descriptor, bytes, count, MSG_DONTWAIT) // SO_NOSIGPIPE is set on the socket
    #endif
}
