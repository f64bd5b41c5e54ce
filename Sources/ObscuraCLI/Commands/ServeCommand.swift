import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraServer
import ObscuraStore
import ObscuraKeys

/// `obscura serve`: the local web gallery (docs/API.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Open the web gallery on this vault directory (initialised on first run).",
        discussion: """
            Listens on this computer only unless told otherwise: on 127.0.0.1 and ::1 at one \
            port, and prints a http://localhost link (passkeys need a host name). Binding to \
            another address needs --tls-cert and --tls-key, or --insecure-lan.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port; default 8750, or a free one when 8750 is taken on this computer).")
    var port: Int?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain for HTTPS.", valueName: "file"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key for HTTPS.", valueName: "file"))
    var tlsKey: String?

    @Flag(name: .customLong("insecure-lan"), help: "Serve plain HTTP on a non-loopback address.")
    var insecureLAN = false

    @Option(help: ArgumentHelp(
        "The HTTPS origin a reverse proxy on this computer serves the gallery at (https://NAME[:PORT]): "
            + "only that Host is answered, and every request counts as remote.",
        valueName: "url"))
    var origin: String?

    @Option(name: .customLong("auto-lock-unit-seconds"), help: .hidden)
    var minuteSeconds: Double = 60

    @OptionGroup var testKDF: TestKDFOption

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host.lowercased())
        if !loopback && tlsCert == nil && !insecureLAN {
            throw ValidationError("serving on \(host) needs --tls-cert and --tls-key, or --insecure-lan")
        }
        if let origin {
            guard PublicOrigin(origin) != nil else {
                throw ValidationError("--origin is https://NAME or https://NAME:PORT, nothing after the name and port")
            }
            guard loopback, tlsCert == nil else {
                throw ValidationError("--origin is for a reverse proxy on this computer: it needs the loopback bind and no --tls-cert")
            }
        }
        if minuteSeconds <= 0 { throw ValidationError("--auto-lock-unit-seconds must be positive") }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() throws {
        let directory = try global.openDirectory(create: true, versionNote: false)
        let newDirectory = !directory.isInitialized
        var custody: OuterKeyCustody?
        if newDirectory {
            let setup = KeySetup(global: global)
            let new = try setup.newOuterKey()
            Terminal.note("Creating \(SlotFormat.minimumSlotCount) slots in \(directory.path)...")
            do {
                try directory.initialize(kdf: testKDF.parameters() ?? .vault, outerKey: new.key)
            } catch {
                if !directory.isInitialized { setup.discard(new) }
                throw error
            }
            // No prompt here: the gallery's first run is often not at a terminal. The
            // gallery shows the key once the first vault is made, and asks for a group back.
            if new.keyring != nil {
                Terminal.note("note: " + KeySetup.unconfirmedNote + " The gallery shows it once you create a vault.")
            }
            custody = KeySetup.custody(of: new, path: global.outerKeyFilePath())
        } else if !directory.isContainer {
            // A version 3 directory is moved into the container before the gallery opens
            // any vault; as for a new directory, the gallery shows the new key.
            Terminal.note("This directory's slots are version 3; they are moved into the version 4 container first.")
            let migration = Version3Migration(global: global)
            guard let new = try migration.run(directory, keyCheck: .inGallery, asked: "serve") else { return }
            if new.keyring != nil {
                Terminal.note("note: " + KeySetup.unconfirmedNote + " The gallery shows it when you unlock a vault.")
            }
            custody = KeySetup.custody(of: new, path: global.outerKeyFilePath())
        } else if let opened = directory.openedWith {
            custody = opened.keyringItem.map {
                OuterKeyCustody(key: opened.key, keyring: KeySource.platformKeyring(), item: $0, confirmed: opened.confirmed ?? false)
            } ?? global.outerKeyFilePath().map { OuterKeyCustody(key: opened.key, keyFile: $0) }
        }
        if directory.openedWith != nil, let path = global.outerKeyFilePath() {
            Terminal.keyFileWarning(KeyFile.warning(path: path, kind: .outer), always: true)
        }
        var configuration = GalleryServer.Configuration()
        configuration.host = host
        configuration.port = port ?? GalleryServer.Configuration.defaultPort
        configuration.portIsDefault = port == nil
        configuration.tlsCertificate = tlsCert
        configuration.tlsKey = tlsKey
        configuration.origin = origin.flatMap(PublicOrigin.init)
        configuration.minuteSeconds = minuteSeconds
        configuration.newDirectory = newDirectory
        configuration.outerKey = custody
        configuration.announceOtherOrigins = { others in
            // Without the token: the link above carries it, and opens a session there.
            FileHandle.standardOutput.write(Data((
                "Also at: " + others.map { $0 + "/" }.joined(separator: " ")
                + " (open the link above once: it carries this launch's access token)\n").utf8))
        }
        if !configuration.isLoopback && tlsCert == nil {
            Terminal.note("""
                WARNING: --insecure-lan: the gallery is served over plain HTTP on \(host). Anyone on \
                this network can read the photos you view, the passwords you type and your session \
                cookie, and can act as you while the vault is unlocked. Use --tls-cert/--tls-key.
                """)
        }
        if let backup = try? configuration.backupStore.load(directory: BackupConfigurationStore.canonical(directory.path)) {
            Terminal.note(backup.afterSeconds == 0
                ? "Backups: to \(backup.repository.shown), only when asked (Settings, or `obscura backup run` while the gallery is stopped)."
                : "Backups: to \(backup.repository.shown), \(BackupDuration.spoken(backup.afterSeconds)) after the last change.")
        }
        let server = GalleryServer(directory: directory, configuration: configuration)
        let onRunning: @Sendable (SecureBytes) -> Void = { link in
            // Written straight to the descriptor (scripts wait for this line), from the
            // zeroing buffer: the access token never passes through a String.
            var line = Array("Obscura gallery: ".utf8)
            link.withUnsafeBytes { line.append(contentsOf: $0) }
            line.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(Data(line))
            line.withUnsafeMutableBytes { secureZero($0.baseAddress!, $0.count) }
        }
        let done = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task {
            do {
                try await server.run(onRunning: onRunning)
            } catch {
                failure.error = error
            }
            done.signal()
        }
        done.wait()
        server.lockAll()
        // A loopback port that cannot be held is refused before anything is served.
        if let error = failure.error as? ServerError { throw CLIError("the web gallery did not start: \(error)") }
        if let error = failure.error { throw CLIError("the web gallery stopped: \(error)") }
        withExtendedLifetime(directory) {}
    }
}

/// Carries the server task's error back to the command's thread.
private final class FailureBox: @unchecked Sendable {
    // @unchecked: written by the task before `done` is signalled, read after the wait.
    var error: Error?
}
