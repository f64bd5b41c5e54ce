import Foundation
import Hummingbird
import HummingbirdTesting
import ObscuraCrypto
import ObscuraKit
@testable import ObscuraServer
import ObscuraKeys

/// Small PBKDF2 counts keep the API tests fast; the browser suite runs the real ones.
let testIterations = 1000
/// The Host every in-process request names.
let testHost = "127.0.0.1:8750"

/// A vault directory in a temporary root and a gallery server over it.
final class ServerHarness: @unchecked Sendable {
    let root: String
    let directory: VaultDirectory
    let server: GalleryServer

    /// - Parameter clock: what auto-lock, the password delay and the backup schedule
    ///   read instead of the wall clock. Every harness has one, so that only a test that
    ///   advances it sees time pass: a test starved for minutes on a loaded machine (a
    ///   ZIP download once waited 1,018 s inside the suite) must not find its vault
    ///   auto-locked under it. `nil` keeps the wall clock.
    init(minuteSeconds: Double = 60, uploadLimit: Int64 = 64 << 20, tls: (cert: String, key: String)? = nil,
         clock: ManualClock? = ManualClock(), kdf: KDFParameters? = nil, dropPace: BodyPace = .standard,
         outerKey: OuterKeyCustody? = nil, host: String = "127.0.0.1", origin: PublicOrigin? = nil) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("obscura-server-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // A version 4 container under a key of its own, as `serve` makes one (the
        // custody a test passes is only what the key routes show).
        directory = try VaultDirectory(
            path: root + "/vault", deviceSecrets: DeviceSecretStore(path: root + "/config/device-secret"),
            outerKey: SecureBytes(randomCount: 32), create: true)
        // The decoys' KDF, which every vault created here takes: PBKDF2 at the tests' count by default.
        try directory.initialize(kdf: kdf ?? .pbkdf2(iterations: testIterations))
        var configuration = GalleryServer.Configuration()
        configuration.iterations = testIterations
        configuration.minuteSeconds = minuteSeconds
        configuration.uploadLimit = uploadLimit
        configuration.dropPace = dropPace
        configuration.outerKey = outerKey
        configuration.host = host
        configuration.origin = origin
        configuration.webRoot = Self.webRoot
        configuration.tlsCertificate = tls?.cert
        configuration.tlsKey = tls?.key
        // The test's own, never the user's ~/.config.
        configuration.backupStore = BackupConfigurationStore(path: root + "/config/backup")
        if let clock { configuration.clock = { clock.now } }
        server = GalleryServer(directory: directory, configuration: configuration)
    }

    deinit {
        server.lockAll()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The app's files in the source tree.
    static let webRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ObscuraServer/Resources/web").path

    /// This launch's access token, as the printed link carries it.
    var token: String { server.access.token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// Runs `body` against the server in process.
    func test<T: Sendable>(_ body: @escaping @Sendable (Browser) async throws -> T) async throws -> T {
        let token = self.token
        return try await server.application().test(.router) { client in
            try await body(Browser(client: client, token: token))
        }
    }

    /// Runs `body` against the server listening on a loopback port; the browser names
    /// that port in `Host`.
    func testLive<T: Sendable>(_ body: @escaping @Sendable (Browser, Int) async throws -> T) async throws -> T {
        let token = self.token
        return try await server.application().test(.live) { client in
            guard let port = client.port else { throw HarnessError.noPort }
            return try await body(Browser(client: client, token: token, host: "127.0.0.1:\(port)"), port)
        }
    }
}

/// A browser's view of the API: it keeps the session cookie (following every new one the
/// server sets) and CSRF token, and sends the Host and Origin a same-origin page would.
final class Browser: @unchecked Sendable {
    // @unchecked: one test task drives it at a time, except read-only concurrent GETs.
    let client: any TestClientProtocol
    /// The launch's access token, which ``start()`` trades for a session.
    let token: String
    /// The Host (and so Origin) this browser names.
    let host: String
    /// The scheme of the page's origin (`https` behind a proxy, ``PublicOrigin``).
    let scheme: String
    var cookie: String?
    var csrf: String?

    init(client: any TestClientProtocol, token: String, host: String = testHost, scheme: String = "http") {
        self.client = client
        self.token = token
        self.host = host
        self.scheme = scheme
    }

    /// A second browser on the same server, with no session yet.
    func another() -> Browser { Browser(client: client, token: token, host: host, scheme: scheme) }

    /// Sends a request; `json` is encoded as the body. State-changing methods carry the
    /// CSRF token unless `csrf` is false.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: [String: Any]? = nil, body: [UInt8]? = nil,
        headers extra: HTTPFields = [:], csrf sendCSRF: Bool = true
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.hostHeader: host]
        if let cookie { headers[.cookie] = cookie }
        if method != .get && method != .head {
            if extra[.origin] == nil { headers[.origin] = "\(scheme)://\(host)" }
            if sendCSRF, let csrf { headers[.xCSRFToken] = csrf }
        }
        headers.append(contentsOf: extra)
        var buffer: ByteBuffer? = body.map { ByteBuffer(bytes: $0) }
        if let json {
            buffer = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: buffer)
        if let set = response.headers[.setCookie] { cookie = String(set.split(separator: ";")[0]) }
        return response
    }

    /// Opens a session with the access token: takes the cookie and the CSRF token.
    func start() async throws {
        let response = try await send(.post, "/api/session", json: ["token": token])
        precondition(response.status == .created, "no session: \(response.status)")
        csrf = try response.json()["csrf"] as? String
    }

    /// A session with a new vault unlocked.
    func createVault(_ password: String = "correct horse") async throws {
        try await start()
        let response = try await send(.post, "/api/vaults", json: ["password": password, "allowWeak": "true"])
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

/// The live test client reported no port.
enum HarnessError: Error { case noPort }

/// A clock that moves only when a test moves it.
final class ManualClock: @unchecked Sendable {
    // @unchecked: `time` is guarded by `lock`.
    private let lock = NSLock()
    private var time: Double = 1_800_000_000
    var now: Double { lock.withLock { time } }
    func advance(_ seconds: Double) { lock.withLock { time += seconds } }
}
