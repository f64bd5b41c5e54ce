import Foundation
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names a server's TLS certificate vouches for, as a browser writes them in `Host`:
/// DNS names in lower case, IPv4 addresses dotted, IPv6 addresses in brackets
/// (docs/PHONE.md §W5.2). A TLS server answers to the names it has a certificate for, such
/// as `photos.home.arpa` in the router's DNS, which need not be the machine's host name.
enum CertificateNames {
    /// The subject alternative names of the first certificate in the PEM file `path`, in
    /// the certificate's order; none when it cannot be read (the TLS set-up then refuses
    /// the file with its own error). Wildcard names (`*.home.arpa`) are left out: the host
    /// check compares whole names.
    static func of(pemFile path: String) -> [String] {
        guard let leaf = try? NIOSSLCertificate.fromPEMFile(path).first else { return [] }
        // NIOSSL's accessor is underscored (unstable API); the package pins its version.
        return leaf._subjectAlternativeNames().compactMap { name -> String? in
            let bytes = Array(name.contents)
            switch name.nameType {
            case .dnsName:
                guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty, !text.contains("*") else { return nil }
                return text.lowercased()
            case .ipAddress:
                return address(bytes)
            default:
                return nil
            }
        }
    }

    /// A 4- or 16-byte address as a Host value.
    static func address(_ bytes: [UInt8]) -> String? {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family >= 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return nil }
        let numeric = String(cString: text).lowercased()
        return family == AF_INET6 ? "[\(numeric)]" : numeric
    }

    /// The name a launch link uses: the certificate's first DNS name; else, for a server
    /// bound to every interface, the machine's `NAME.local`; else nil (the bound address).
    static func linkName(certificate: [String], wildcard: Bool) -> String? {
        let dns = certificate.first { !$0.hasPrefix("[") && !$0.allSatisfy { $0.isNumber || $0 == "." } }
        return dns ?? (wildcard ? MachineNames.hostName().map { $0 + ".local" } : nil)
    }
}
