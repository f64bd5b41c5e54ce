import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit

/// `obscura device-secret export|import`: moves the secret that keys the decoys.
struct DeviceSecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-secret",
        abstract: "Export or import the device secret that keys decoy slots.",
        subcommands: [Export.self, Import.self])

    /// Symbols per dash-separated group when the secret is shown.
    static let groupSize = 4

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the device secret as Crockford base32.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let secret = try DeviceSecretStore.defaultStore().load()
            let text = Crockford32.encode(secret)
            Terminal.note("warning: whoever holds this secret can tell decoys from real vaults. Store it apart from the vault directory.")
            // Sized up front, so it never grows and leaves a copy in freed memory.
            let grouped = SecureBuffer(capacity: text.count + text.count / DeviceSecretCommand.groupSize + 1)
            text.withUnsafeBytes { symbols in
                for (i, symbol) in symbols.enumerated() {
                    if i > 0 && i % DeviceSecretCommand.groupSize == 0 { grouped.append(UInt8(ascii: "-")) }
                    grouped.append(symbol)
                }
            }
            grouped.append(UInt8(ascii: "\n"))
            let line = grouped.take()
            try line.withUnsafeBytes { try FileHandle.standardOutput.write(contentsOf: $0) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a device secret (Crockford base32) from standard input or the terminal.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Replace a different device secret already present.")
        var force = false

        func run() throws {
            let text: SecureBytes
            if Terminal.stdinIsTerminal {
                text = try Terminal.readSecret(prompt: "Device secret: ")
            } else {
                guard let line = Terminal.readLine() else { throw CLIError("expected the device secret on standard input") }
                text = line
            }
            guard let secret = Crockford32.decode(text, byteCount: DeviceSecretStore.size) else {
                throw CLIError("not a device secret: expected 52 Crockford base32 symbols")
            }
            let store = DeviceSecretStore.defaultStore()
            if store.exists {
                if try store.load() == secret {
                    Terminal.output("This device secret is already installed; nothing changed.")
                    return
                }
                guard force else {
                    throw CLIError("a different device secret exists at \(store.path); decoys made with it could no longer be found. Pass --force to replace it")
                }
            }
            try store.save(secret)
            Terminal.output("Device secret saved to \(store.path).")
        }
    }
}
