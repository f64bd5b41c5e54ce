import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
@testable import ObscuraServer

/// Small PBKDF2 counts keep the API tests fast; the browser suite runs the real ones.
let testIterations = 1000
/// The Host every in-process request names.
let testHost = "127.0.0.1:8750"

/// A vault directory in a temporary root and a gallery server over it.
final class ServerHarness: @unchecked Sendable {
    let root: String
    let directory: VaultDirectory
    let server: GalleryServer

    init(minuteSeconds: Double = 60, uploadLimit: Int64 = 64 << 20) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-server-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        directory = try VaultDirectory(
            path: root + "/vault", deviceSecrets: DeviceSecretStore(path: root + "/config/device-secret"), create: true)
        try directory.initialize(iterations: testIterations)
        var configuration = GalleryServer.Configuration()
        configuration.iterations = testIterations
        configuration.minuteSeconds = minuteSeconds
        configuration.uploadLimit = uploadLimit
        configuration.webRoot = Self.webRoot
        server = GalleryServer(directory: directory, configuration: configuration)
    }

    deinit {
        server.lockAll()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The app's files in the source tree.
    static let webRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ObscuraServer/Resources/web").path

    /// Runs `body` against the server in process.
    func test<T: Sendable>(_ body: @escaping @Sendable (Browser) async throws -> T) async throws -> T {
        try await server.application().test(.router) { client in
            try await body(Browser(client: client))
        }
    }
}

/// A browser's view of the API: it keeps the session cookie and CSRF token, and sends
/// the Host and Origin a same-origin page would.
final class Browser: @unchecked Sendable {
    // @unchecked: one test task drives it at a time, except read-only concurrent GETs.
    let client: any TestClientProtocol
    var cookie: String?
    var csrf: String?

    init(client: any TestClientProtocol) { self.client = client }

    /// Sends a request; `json` is encoded as the body. State-changing methods carry the
    /// CSRF token unless `csrf` is false.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: [String: Any]? = nil, body: [UInt8]? = nil,
        headers extra: HTTPFields = [:], csrf sendCSRF: Bool = true
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.hostHeader: testHost]
        if let cookie { headers[.cookie] = cookie }
        if method != .get && method != .head {
            if extra[.origin] == nil { headers[.origin] = "http://\(testHost)" }
            if sendCSRF, let csrf { headers[.xCSRFToken] = csrf }
        }
        headers.append(contentsOf: extra)
        var buffer: ByteBuffer? = body.map { ByteBuffer(bytes: $0) }
        if let json {
            buffer = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        }
        return try await client.execute(uri: uri, method: method, headers: headers, body: buffer)
    }

    /// Opens a session: takes the cookie and the CSRF token.
    func start() async throws {
        let response = try await send(.get, "/api/session")
        cookie = response.headers[.setCookie].map { String($0.split(separator: ";")[0]) }
        csrf = try response.json()["csrf"] as? String
    }

    /// A session with a new vault unlocked.
    func createVault(_ password: String = "correct horse") async throws {
        try await start()
        let response = try await send(.post, "/api/vaults", json: ["password": password])
        precondition(response.status == .created, "vault creation failed: \(response.status)")
    }

    /// Uploads `bytes` as `name`; returns the JSON answer.
    func upload(_ bytes: [UInt8], name: String, folder: String? = nil) async throws -> TestResponse {
        var uri = "/api/upload?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)"
        if let folder { uri += "&folder=\(folder)" }
        return try await send(.post, uri, body: bytes)
    }
}

extension TestResponse {
    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    /// The body's bytes.
    var bytes: [UInt8] { Array(body.readableBytesView) }
}
