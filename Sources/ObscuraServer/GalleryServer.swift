import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServiceLifecycle
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura serve`: the local web gallery over one vault directory (docs/API.md).
public struct GalleryServer: Sendable {
    /// How the server is started.
    public struct Configuration: Sendable {
        /// Address to bind; loopback unless told otherwise.
        public var host = "127.0.0.1"
        /// The port used when none is given.
        public static let defaultPort = 8750
        /// Port; 0 picks a free one.
        public var port = defaultPort
        /// Whether `port` is the default rather than the user's: on loopback, a default port
        /// another program holds gives way to a free one instead of a refusal.
        public var portIsDefault = false
        /// PEM certificate chain and private key for HTTPS.
        public var tlsCertificate: String?
        /// The private key matching ``tlsCertificate``.
        public var tlsKey: String?
        /// The HTTPS origin a reverse proxy on this machine serves the gallery at; only
        /// with a loopback bind (``PublicOrigin``).
        public var origin: PublicOrigin?
        /// Where the app's files are (see `StaticRoutes.defaultRoot`).
        public var webRoot: String?
        /// Seconds in one auto-lock "minute" (60; tests shorten it).
        public var minuteSeconds: Double = 60
        /// The largest upload accepted, in bytes.
        public var uploadLimit: Int64 = 4 << 30
        /// PBKDF2 rounds for vaults created in the gallery: the production default.
        public var iterations = PasswordKDF.vaultIterations
        /// Whether this process made the vault directory as it started: until a vault is
        /// created through the gallery, its unlock page then leads with creating one. Only
        /// this process knows it, so it says nothing of a directory's slots once a vault
        /// exists or the server restarts.
        public var newDirectory = false
        /// The directory's outer key and where it is kept, for the gallery to show once
        /// and to take a group of back (docs/API.md, "Outer key"); nil for a version 3
        /// directory, which has none.
        public var outerKey: OuterKeyCustody?
        /// Where the directory's backup set-up is read (docs/BACKUP.md).
        public var backupStore = BackupConfigurationStore.default()
        /// How slowly a drop's body may arrive (tests shorten it).
        var dropPace = BodyPace.standard
        /// Seconds since 1970 for auto-lock and the password delay (tests drive their own).
        package var clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        /// Called once the server listens, after the link, with the other origins a phone
        /// can use (the certificate's other names and addresses, docs/PHONE.md §W5.2); not
        /// called when there are none.
        public var announceOtherOrigins: (@Sendable ([String]) -> Void)?

        /// The default configuration: 127.0.0.1:8750, plain HTTP.
        public init() {}

        /// Whether the server is reachable only from this machine.
        public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(host.lowercased()) }
        /// Whether the server speaks HTTPS.
        public var usesTLS: Bool { tlsCertificate != nil }
        /// Whether browsers reach it over HTTPS: its own TLS, or a proxy's (``origin``).
        /// Then cookies are `Secure` with the `__Host-` prefix, HSTS is sent, and passkeys
        /// take the name the page was reached by.
        public var servesHTTPS: Bool { usesTLS || origin != nil }
        /// Whether a request may be taken as this machine's user's: a loopback bind that
        /// no proxy serves beyond the machine.
        public var isLocalOnly: Bool { isLoopback && origin == nil }
    }

    let configuration: Configuration
    let store: SessionStore
    /// This launch's access token and cookie name.
    let access: LaunchAccess
    let allowedHosts = NIOLockedValueBox<Set<String>>([])
    /// Reads the allowed hosts again on a miss, for a server bound to every interface.
    let hostRenewal = HostRenewal()
    /// The names the TLS certificate vouches for (``CertificateNames``); none without TLS.
    let certificateNames: [String]
    /// The origins a phone can use, for the drop page's QR code (``DropCodeRoutes``).
    let phoneOrigins = NIOLockedValueBox<[String]>([])
    /// Automatic backups of the directory.
    let backups: BackupScheduler

    /// A server over `directory` (opened, and so locked, by the caller).
    public init(directory: VaultDirectory, configuration: Configuration) {
        self.configuration = configuration
        store = SessionStore(
            directory: directory, minuteSeconds: configuration.minuteSeconds, iterations: configuration.iterations,
            suggestCreating: configuration.newDirectory, clock: configuration.clock)
        access = LaunchAccess(secure: configuration.servesHTTPS)
        backups = BackupScheduler(directory: directory, store: configuration.backupStore, clock: configuration.clock)
        certificateNames = configuration.tlsCertificate.map(CertificateNames.of(pemFile:)) ?? []
        phoneOrigins.withLockedValue { [certificateNames] in
            $0 = DropCodeRoutes.phoneOrigins(configuration, port: configuration.port, certificate: certificateNames)
        }
        allowedHosts.withLockedValue { $0 = Self.hosts(configuration, host: configuration.host, port: configuration.port, certificate: certificateNames) }
    }

    /// The Host values a server of `configuration` bound to `host`:`port` answers to.
    /// Behind a proxy (``Configuration/origin``), only the origin's: a proxy that rewrote
    /// Host to its upstream's fails at once with 421, instead of letting every request,
    /// a rebinding page's included, arrive as `127.0.0.1:PORT`.
    static func hosts(_ configuration: Configuration, host: String, port: Int, certificate: [String]) -> Set<String> {
        if let origin = configuration.origin { return [origin.hostValue] }
        return OriginMiddleware<GalleryContext>.hosts(
            bound: host, port: port, certificate: certificate, defaultPort: configuration.usesTLS ? 443 : 80)
    }

    /// The router: middleware and every route.
    func router(webRoot: String) -> Router<GalleryContext> {
        let router = Router(context: GalleryContext.self)
        router.add(middleware: SecurityHeadersMiddleware(tls: configuration.servesHTTPS))
        router.add(middleware: OriginMiddleware(
            allowedHosts: allowedHosts, scheme: configuration.servesHTTPS ? "https" : "http",
            renewal: MachineNames.isWildcard(configuration.host) ? hostRenewal : nil))
        router.add(middleware: SessionMiddleware(store: store, access: access))
        SessionRoutes(store: store, access: access).register(on: router)
        PasskeyRoutes(store: store, access: access, usesTLS: configuration.servesHTTPS).register(on: router)
        ItemRoutes().register(on: router)
        MediaRoutes().register(on: router)
        ZipRoutes().register(on: router)
        EndRoutes().register(on: router)
        NoteRoutes().register(on: router)
        DropCodeRoutes(origins: phoneOrigins, watch: DropCodeRoutes.watchFacts(vaultPath: store.directory.path)).register(on: router)
        KeyRoutes(custody: configuration.outerKey, loopback: configuration.isLocalOnly).register(on: router)
        UploadRoutes(limit: configuration.uploadLimit).register(on: router)
        DropRoutes(contentLimit: min(configuration.uploadLimit, DropRoutes.defaultContentLimit), pace: configuration.dropPace)
            .register(on: router)
        FolderRoutes(store: store).register(on: router)
        SettingsRoutes(store: store).register(on: router)
        PasswordStrengthRoutes().register(on: router)
        ExportRoutes().register(on: router)
        BackupRoutes(scheduler: backups).register(on: router)
        StaticRoutes(root: webRoot).register(on: router)
        return router
    }

    /// Serves until SIGINT or SIGTERM. `onRunning` gets the link to open once every
    /// socket listens: the URL with this launch's access token in its fragment, in a
    /// zeroing buffer (docs/API.md, "Access token").
    ///
    /// On loopback the gallery listens on 127.0.0.1 and [::1] at one port and links to
    /// `localhost` (docs/API.md, "Loopback"): passkeys need a host name, and browsers
    /// may reach `localhost` through either address, so both are held before the link
    /// is printed. Elsewhere it listens on the one address it was given.
    public func run(onRunning: @escaping @Sendable (SecureBytes) -> Void) async throws {
        guard configuration.isLoopback else {
            try await application(onRunning: onRunning).runService()
            return
        }
        let choice: LoopbackPort.Choice
        do {
            choice = try LoopbackPort.choose(requested: configuration.port)
        } catch ServerError.loopbackPortInUse where configuration.portIsDefault {
            // Someone holds 8750 on 127.0.0.1 or ::1: the default gives way (the link says where).
            choice = try LoopbackPort.choose(requested: 0)
        }
        // NIO binds through the resolver, which may refuse "::1" (an IPv4-only machine):
        // then [::1] is held, not served, so that nobody else is `localhost` to a browser.
        let servesIPv6 = choice.ipv6 && LoopbackPort.resolvesIPv6Loopback()
        let held = choice.ipv6 && !servesIPv6 ? try LoopbackPort.hold(port: choice.port) : nil
        defer { if let held { close(held) } }
        let ready = LoopbackReadiness(expected: servesIPv6 ? 2 : 1)
        let scheme = configuration.usesTLS ? "https" : "http"
        let access = self.access
        // Behind a proxy the link is the proxy's origin, the only Host answered.
        let linkBase = configuration.origin.map { $0.text + "/" } ?? "\(scheme)://localhost:\(choice.port)/"
        let announce: @Sendable (any Channel) async -> Void = { _ in
            if ready.arrived() { onRunning(access.link(linkBase)) }
        }
        let parts = try parts()
        // One responder for both: the same sessions, host check and router. The services
        // (auto-lock, backups) run once, beside the 127.0.0.1 listener.
        func listener(_ host: String, services: [any Service]) -> Application<RouterResponder<GalleryContext>> {
            Application(
                responder: parts.responder, server: parts.server,
                configuration: .init(address: .hostname(host, port: choice.port), serverName: nil),
                services: services, onServerRunning: announce, logger: parts.logger)
        }
        var applications = [listener("127.0.0.1", services: [AutoLockService(store: store), BackupService(scheduler: backups)])]
        if servesIPv6 { applications.append(listener("::1", services: [])) }
        allowedHosts.withLockedValue { $0 = Self.hosts(configuration, host: "127.0.0.1", port: choice.port, certificate: certificateNames) }
        let group = ServiceGroup(configuration: .init(
            services: applications.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: parts.logger))
        try await group.run()
    }

    /// What every listening socket of this server shares: one responder (one router,
    /// one session store), the HTTP or HTTPS server, and the logger.
    private func parts() throws -> (responder: RouterResponder<GalleryContext>, server: HTTPServerBuilder, logger: Logger) {
        guard let webRoot = configuration.webRoot ?? StaticRoutes.defaultRoot() else {
            throw ServerError.webRootMissing
        }
        let server: HTTPServerBuilder
        if let cert = configuration.tlsCertificate, let key = configuration.tlsKey {
            let chain = try NIOSSLCertificate.fromPEMFile(cert).map { NIOSSLCertificateSource.certificate($0) }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            tls.minimumTLSVersion = Self.minimumTLSVersion
            server = try .tls(.http1(), tlsConfiguration: tls)
        } else {
            server = .http1()
        }
        // The level is the command line's (--verbose, OBSCURA_LOG_LEVEL).
        return (router(webRoot: webRoot).buildResponder(), server, Logger(label: "obscura.server"))
    }

    /// The application on the one address of the configuration (tests drive it in
    /// process; ``run(onRunning:)`` serves a loopback configuration on both loopbacks).
    public func application(onRunning: @escaping @Sendable (SecureBytes) -> Void = { _ in }) throws -> some ApplicationProtocol {
        let parts = try parts()
        let scheme = configuration.usesTLS ? "https" : "http"
        let host = configuration.host
        let allowedHosts = self.allowedHosts
        let access = self.access
        let configuration = self.configuration
        let certificate = certificateNames
        let renewal = hostRenewal
        let origins = phoneOrigins
        // The link names the server as a phone reaches it: the certificate's first DNS
        // name, or for a wildcard bind the machine's NAME.local; never 0.0.0.0, which no
        // browser should open (docs/PHONE.md §W5.2).
        let wildcard = MachineNames.isWildcard(host)
        let named = configuration.usesTLS || wildcard ? CertificateNames.linkName(certificate: certificate, wildcard: wildcard) : nil
        let shown = named ?? (host.contains(":") ? "[\(host)]" : host)
        return Application(
            responder: parts.responder,
            server: parts.server,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            services: [AutoLockService(store: store), BackupService(scheduler: backups)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let make: @Sendable () -> Set<String> = { Self.hosts(configuration, host: host, port: port, certificate: certificate) }
                allowedHosts.withLockedValue { $0 = make() }
                if wildcard { renewal.set(make) }
                let phone = DropCodeRoutes.phoneOrigins(configuration, port: port, certificate: certificate)
                origins.withLockedValue { $0 = phone }
                let defaultPort = configuration.usesTLS ? 443 : 80
                let linked = "\(scheme)://\(shown)\(port == defaultPort ? "" : ":\(port)")"
                onRunning(access.link(linked + "/"))
                let others = phone.filter { $0 != linked }
                if !others.isEmpty { configuration.announceOtherOrigins?(others) }
            },
            logger: parts.logger
        )
    }

    /// The oldest TLS version served: NIOSSL's server default would accept 1.0.
    static let minimumTLSVersion = TLSVersion.tlsv12

    /// Locks every vault this server unlocked.
    public func lockAll() { store.lockAll() }
}

/// Errors starting the gallery.
public enum ServerError: ObscuraError {
    /// The app's files were not found.
    case webRootMissing
    /// `--port P` is taken on 127.0.0.1 or [::1].
    case loopbackPortInUse(Int)
    /// Sixteen ports in a row were taken on [::1] by another program.
    case noFreeLoopbackPort
    /// A loopback socket could not be made (the errno).
    case loopbackUnavailable(Int32)

    public var description: String {
        switch self {
        case .webRootMissing:
            return "the web gallery's files were not found beside the executable; set OBSCURA_WEB_ROOT to Sources/ObscuraServer/Resources/web"
        case .loopbackPortInUse(let port):
            return "port \(port) is in use on 127.0.0.1 or ::1 (another program may be listening there); choose another with --port, or --port 0"
        case .noFreeLoopbackPort:
            return "no free port on both 127.0.0.1 and ::1: another program holds the ::1 side of every port tried"
        case .loopbackUnavailable(let code):
            return "cannot listen on the loopback address: \(String(cString: strerror(code)))"
        }
    }
}
