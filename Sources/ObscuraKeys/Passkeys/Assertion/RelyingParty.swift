import ObscuraCrypto

/// The relying party a passkey is scoped to, as the server computes it once at launch
/// (docs/FORMAT.md §9.9): the rpId (`localhost` on loopback, else the TLS host name) and
/// the exact origin a browser serializes for the page.
public struct RelyingParty: Sendable, Equatable {
    /// The relying-party id: a host name, never an IP address.
    public let id: String
    /// The origin, byte for byte: `http://localhost:PORT`, or `https://HOST` with
    /// `:PORT` unless the port is 443.
    public let origin: String
    /// SHA-256 of the UTF-8 rpId: the first 32 bytes of every authenticator data.
    public let idHash: [UInt8]

    /// The relying party `id` at `origin`.
    public init(id: String, origin: String) {
        self.id = id
        self.origin = origin
        idHash = SHA256Digest.hash(Array(id.utf8))
    }

    /// The party of a server on loopback at `port`: `localhost`, plain HTTP.
    public static func loopback(port: Int) -> RelyingParty {
        RelyingParty(id: "localhost", origin: "http://localhost:\(port)")
    }

    /// The party of a server with TLS for `host` (lower-cased) at `port`.
    public static func tls(host: String, port: Int) -> RelyingParty {
        let name = host.lowercased()
        return RelyingParty(id: name, origin: "https://" + name + (port == 443 ? "" : ":\(port)"))
    }
}
