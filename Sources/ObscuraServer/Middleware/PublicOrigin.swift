import Foundation

/// The origin a reverse proxy on this machine serves the gallery at (`serve --origin
/// https://photos.home.arpa`; docs/PHONE.md §W5.2): the proxy terminates TLS and passes
/// requests to the loopback listener with the client's `Host`. Behind it, the loopback
/// bind no longer means "this machine's user": only the origin's Host is answered, every
/// request counts as remote, and cookies and headers are those of an HTTPS server.
public struct PublicOrigin: Sendable, Equatable {
    /// The host name, lower case.
    public let host: String
    /// The port, nil for HTTPS's default (443).
    public let port: Int?

    /// Reads `https://NAME[:PORT]`, with no path but `/`, no query, no user part. Only
    /// `https`: plain HTTP beyond this machine cannot seal a drop (no secure context)
    /// and would carry the password in clear.
    public init?(_ text: String) {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "https",
              let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil,
              url.query == nil, url.fragment == nil, ["", "/"].contains(url.path)
        else { return nil }
        if let port = url.port, !(1...65535).contains(port) { return nil }
        self.host = host
        self.port = url.port == 443 ? nil : url.port
    }

    /// The `Host` value a browser sends to this origin.
    public var hostValue: String { port.map { "\(host):\($0)" } ?? host }

    /// The origin as a browser names it in `Origin`, and as the launch link starts.
    public var text: String { "https://" + hostValue }
}
