import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The DNS-rebinding defence (docs/API.md): a request must name this server in `Host`,
/// and a request that says where it comes from (`Origin`) must come from this server.
struct OriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Host header values this server answers to, lower case (`127.0.0.1:8750`, ...).
    /// Filled in once the port is known.
    let allowedHosts: NIOLockedValueBox<Set<String>>
    /// `http` or `https`.
    let scheme: String
    /// Reads the names again when a request names none of them (a server bound to every
    /// interface, whose machine may have gained an address since); nil for a fixed set.
    var renewal: HostRenewal? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var hosts = allowedHosts.withLockedValue { $0 }
        // HTTP/1 puts Host into the authority; a Host left among the headers (in-process
        // tests) is what the client said, so it is the one checked when present.
        guard let host = request.headers[.hostHeader] ?? request.head.authority else {
            throw APIError(.misdirectedRequest, "unknown host")
        }
        if !hosts.contains(host.lowercased()), let fresh = renewal?.renewed() {
            // A rebinding attacker's own name never becomes one of the machine's.
            allowedHosts.withLockedValue { $0 = fresh }
            hosts = fresh
        }
        guard hosts.contains(host.lowercased()) else {
            throw APIError(.misdirectedRequest, "unknown host")
        }
        if let origin = request.headers[.origin] {
            // Under `Referrer-Policy: no-referrer` browsers send `Origin: null` with form
            // posts; the export and ZIP download forms are the ones, and their CSRF field
            // and the SameSite=Strict cookie still hold them to this origin.
            let formNull = origin == "null" && request.method == .post && SessionMiddleware.formPaths.contains(request.uri.path)
            // A share post that reaches the server is answered with a redirect and read by
            // nothing (StaticRoutes.sharePath): whatever origin the share sheet gives it.
            let share = request.method == .post && request.uri.path == StaticRoutes.sharePath
            guard formNull || share || origin.lowercased() == "\(scheme)://\(host.lowercased())" else {
                throw APIError(.forbidden, "cross-origin request refused")
            }
        }
        return try await next(request, context)
    }

    /// The Host values for a server bound to `host`:`port`: the loopback names too when
    /// it is bound to loopback, and when it is bound to a wildcard address (every
    /// interface), the loopback names and `machine`, the machine's own addresses and names
    /// (``MachineNames``); and `certificate`, the names the TLS certificate vouches for
    /// (``CertificateNames``). At the scheme's default port (`defaultPort`: 443 for HTTPS,
    /// 80 for HTTP) a browser leaves the port out of `Host`, so the bare names count too
    /// (docs/PHONE.md §W5.2).
    static func hosts(
        bound host: String, port: Int, machine: @autoclosure () -> Set<String> = MachineNames.current(),
        certificate: [String] = [], defaultPort: Int? = nil
    ) -> Set<String> {
        var names: Set<String> = [host.lowercased()]
        if ["127.0.0.1", "localhost", "::1"].contains(host.lowercased()) {
            names.formUnion(["127.0.0.1", "localhost", "[::1]"])
        }
        if MachineNames.isWildcard(host) {
            names.formUnion(["127.0.0.1", "localhost", "[::1]"])
            names.formUnion(machine())
        }
        if host.contains(":") && !host.hasPrefix("[") { names.insert("[\(host.lowercased())]") }
        names.formUnion(certificate)
        var hosts = Set(names.map { "\($0):\(port)" })
        if port == defaultPort { hosts.formUnion(names) }
        return hosts
    }
}

/// Reads a server's allowed hosts again on demand, at most once per ``interval`` seconds,
/// so that a request naming an unknown host cannot make the server read the machine's
/// addresses at every request (docs/PHONE.md §W5.2).
final class HostRenewal: Sendable {
    /// The least time between two reads, in seconds.
    static let interval: Double = 10
    private let state = NIOLockedValueBox<(last: Double, make: (@Sendable () -> Set<String>)?)>((0, nil))
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.now = now
    }

    /// Sets how the hosts are made (once the port is known).
    func set(_ make: @escaping @Sendable () -> Set<String>) {
        state.withLockedValue { $0 = (now(), make) }
    }

    /// The hosts made afresh, or nil when none can be made or the last read is too recent.
    func renewed() -> Set<String>? {
        let time = now()
        let make = state.withLockedValue { value -> (@Sendable () -> Set<String>)? in
            guard let make = value.make, time - value.last >= Self.interval else { return nil }
            value.last = time
            return make
        }
        return make?()
    }
}
