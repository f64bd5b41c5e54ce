#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one port a loopback gallery takes on both 127.0.0.1 and [::1] (docs/API.md,
/// "Loopback"). Browsers resolve `localhost` to both addresses and may try [::1] first,
/// so whoever listens on [::1]:PORT *is* `http://localhost:PORT` to them: the server
/// holds both before it prints a link, or prints none.
package enum LoopbackPort {
    /// Fresh ports tried when the system's choice is taken on [::1] by someone else.
    static let attempts = 16

    /// The port to serve on, and whether this machine has an IPv6 loopback to hold.
    package struct Choice: Equatable {
        package let port: Int
        package let ipv6: Bool
    }

    /// Binds and listens on 127.0.0.1:`requested` (0: any free port) and then on the
    /// same port of [::1], and closes both: the gallery's own sockets take them next.
    /// Listening, not only binding, is what counts: on Linux another user's socket bound
    /// with SO_REUSEADDR shares a port until one of them listens (PK21).
    ///
    /// - Throws: ``ServerError/loopbackPortInUse(_:)`` when `requested` is taken on
    ///   either address; ``ServerError/noFreeLoopbackPort`` when 16 ports in a row were
    ///   free on 127.0.0.1 but taken on [::1]; ``ServerError/loopbackUnavailable(_:)``
    ///   when a socket cannot be made at all.
    package static func choose(requested: Int) throws -> Choice {
        for _ in 0..<(requested == 0 ? attempts : 1) {
            let v4: (descriptor: Int32, port: Int)
            do {
                v4 = try listening(family: AF_INET, port: requested)
            } catch {
                throw serverError(error, port: requested)
            }
            defer { close(v4.descriptor) }
            let v6: (descriptor: Int32, port: Int)
            do {
                v6 = try listening(family: AF_INET6, port: v4.port)
            } catch SocketFailure.addressInUse {
                if requested != 0 { throw ServerError.loopbackPortInUse(requested) }
                continue
            } catch SocketFailure.other(let code) {
                throw ServerError.loopbackUnavailable(code)
            } catch {
                // No IPv6 loopback here: nobody can bind it, and a browser's attempt at
                // [::1] is refused at once and falls back to 127.0.0.1.
                return Choice(port: v4.port, ipv6: false)
            }
            close(v6.descriptor)
            return Choice(port: v4.port, ipv6: true)
        }
        throw ServerError.noFreeLoopbackPort
    }

    package enum SocketFailure: Error {
        /// EADDRINUSE, at bind or at listen.
        case addressInUse
        /// EADDRNOTAVAIL or EAFNOSUPPORT: the machine has no such address.
        case noAddress
        /// Any other errno.
        case other(Int32)
    }

    /// A socket listening on the loopback address of `family` at `port`: ``bound(family:port:)``,
    /// then `listen`.
    package static func listening(family: Int32, port: Int) throws -> (descriptor: Int32, port: Int) {
        let socket = try bound(family: family, port: port)
        guard listen(socket.descriptor, 1) == 0 else {
            let error = failure(errno)
            close(socket.descriptor)
            throw error
        }
        return socket
    }

    /// Whether the system's resolver gives an address for "::1", as NIO's bind asks it
    /// (`getaddrinfo` with no hints). glibc applies AI_ADDRCONFIG then, and on a machine
    /// with an IPv4 address and no IPv6 one beyond loopback (an IPv4-only home network)
    /// it refuses "::1" although [::1] exists: the server cannot listen there.
    package static func resolvesIPv6Loopback() -> Bool {
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("::1", "0", nil, &info) == 0 else { return false }
        freeaddrinfo(info)
        return true
    }

    /// Holds [::1]:`port` for a server that cannot listen there (see
    /// ``resolvesIPv6Loopback()``): bound without SO_REUSEADDR and never listening, so no
    /// other socket can bind it, and a browser's connection there is refused at once and
    /// falls back to 127.0.0.1, as on a machine without an IPv6 loopback. Close it when
    /// the server stops.
    package static func hold(port: Int) throws -> Int32 {
        do {
            return try bound(family: AF_INET6, port: port, reusingAddress: false).descriptor
        } catch {
            throw serverError(error, port: port)
        }
    }

    /// What a socket failure at `port` is to the server: the port in use, or no loopback.
    private static func serverError(_ error: Error, port: Int) -> ServerError {
        switch error {
        case SocketFailure.addressInUse: .loopbackPortInUse(port)
        case let SocketFailure.other(code): .loopbackUnavailable(code)
        default: .loopbackUnavailable(EADDRNOTAVAIL)
        }
    }

    /// A socket bound, not listening, to the loopback address of `family` at `port` (0:
    /// the system's choice), and the port it got; with SO_REUSEADDR (as NIO sets it)
    /// unless `reusingAddress` is false, and never SO_REUSEPORT; for IPv6, IPV6_V6ONLY.
    package static func bound(family: Int32, port: Int, reusingAddress: Bool = true) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw failure(errno) }
        var one: Int32 = 1
        if reusingAddress {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        do {
            if family == AF_INET6 {
                guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                    throw failure(errno)
                }
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                address.sin6_addr = in6addr_loopback
                try bind(descriptor, &address)
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
                try bind(descriptor, &address)
            }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw failure(errno) }
            let chosen = withUnsafeBytes(of: &bound) { raw in
                // sin_port and sin6_port sit at the same offset, in network order.
                Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
            }
            return (descriptor, chosen)
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func bind<Address>(_ descriptor: Int32, _ address: inout Address) throws {
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
                #else
                Darwin.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
                #endif
            }
        }
        guard bound == 0 else { throw failure(errno) }
    }

    private static func failure(_ code: Int32) -> SocketFailure {
        switch code {
        case EADDRINUSE: return .addressInUse
        case EADDRNOTAVAIL, EAFNOSUPPORT: return .noAddress
        default: return .other(code)
        }
    }
}
