import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names by which clients reach a server bound to a wildcard address (`0.0.0.0`,
/// `::`): every address of the machine's interfaces, its host name, and `NAME.local`. A
/// browser puts what it connected to in `Host`, so these are what it may say; anything
/// else is another name (a rebinding attack's), refused by ``OriginMiddleware``.
///
/// Read when the server starts, and again when a request names a host not among them
/// (at most every 10 seconds, ``OriginMiddleware``): an address the machine gets later (a
/// DHCP renewal, another network) is answered once it is the machine's.
enum MachineNames {
    /// The machine's host name, lower case; nil when it has none.
    static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(cString: buffer).lowercased()
        return name.isEmpty ? nil : name
    }

    /// Whether `host` is a wildcard bind address.
    static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"].contains(host.lowercased())
    }

    /// The interface addresses (IPv6 without a zone, in brackets) and host names, lower case.
    static func current() -> Set<String> {
        var names = Set<String>()
        if let name = hostName() { names.formUnion([name, name + ".local"]) }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return names }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            // A link-local IPv6 address comes with its zone ("fe80::1%eth0"), which a Host
            // header cannot carry.
            let numeric = String(cString: text).split(separator: "%").first.map(String.init) ?? ""
            names.insert(family == AF_INET6 ? "[\(numeric.lowercased())]" : numeric)
        }
        return names
    }
}
