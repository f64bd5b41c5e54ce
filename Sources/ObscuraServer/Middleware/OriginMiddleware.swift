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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let hosts = allowedHosts.withLockedValue { $0 }
        // HTTP/1 puts Host into the authority; a Host left among the headers (in-process
        // tests) is what the client said, so it is the one checked when present.
        guard let host = request.headers[.hostHeader] ?? request.head.authority, hosts.contains(host.lowercased()) else {
            throw APIError(.misdirectedRequest, "unknown host")
        }
        if let origin = request.headers[.origin] {
            // Under `Referrer-Policy: no-referrer` browsers send `Origin: null` with form
            // posts; the export and ZIP download forms are the ones, and their CSRF field
            // and the SameSite=Strict cookie still hold them to this origin.
            let formNull = origin == "null" && request.method == .post && SessionMiddleware.formPaths.contains(request.uri.path)
            guard formNull || origin.lowercased() == "\(scheme)://\(host.lowercased())" else {
                throw APIError(.forbidden, "cross-origin request refused")
            }
        }
        return try await next(request, context)
    }

    /// The Host values for a server bound to `host`:`port`: the loopback names too when
    /// it is bound to loopback, and when it is bound to a wildcard address (every
    /// interface), the loopback names and `machine`, the machine's own addresses and names
    /// (``MachineNames``).
    static func hosts(bound host: String, port: Int, machine: @autoclosure () -> Set<String> = MachineNames.current()) -> Set<String> {
        var names: Set<String> = [host.lowercased()]
        if ["127.0.0.1", "localhost", "::1"].contains(host.lowercased()) {
            names.formUnion(["127.0.0.1", "localhost", "[::1]"])
        }
        if MachineNames.isWildcard(host) {
            names.formUnion(["127.0.0.1", "localhost", "[::1]"])
            names.formUnion(machine())
        }
        if host.contains(":") && !host.hasPrefix("[") { names.insert("[\(host.lowercased())]") }
        return Set(names.map { "\($0):\(port)" })
    }
}
