import ArgumentParser
import Foundation
import ObscuraKit

/// `obscura status`: the directory's state, and with a password the vault's.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the vault directory, and with a password the unlocked vault's contents.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Flag(name: .long, help: "Ask for a password and report the vault it opens.")
    var unlock = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    /// The fields printed; snake_case in JSON.
    struct Report: Encodable {
        var vault: String
        var initialized: Bool
        var slots: Int
        var deviceSecret: Bool
        var state: String
        var formatVersion: Int?
        var iterations: Int?
        var items: Int?
        var folders: Int?
    }

    func run() throws {
        let directory = try global.openDirectory()
        var report = Report(
            vault: directory.path, initialized: directory.isInitialized,
            slots: directory.isInitialized ? try directory.slotCount() : 0,
            deviceSecret: directory.deviceSecrets.exists, state: "locked")
        if unlock || passwords.passwordStdin {
            let vault = try directory.unlock(password: try passwords.existing())
            defer { vault.lock() }
            let counts = try vault.catalog.counts()
            report.state = "unlocked"
            report.formatVersion = Int(SlotFormat.version)
            report.iterations = vault.iterations
            report.items = counts.items
            report.folders = counts.folders
        }
        if json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Terminal.output(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Terminal.output("vault:         \(report.vault)")
            Terminal.output("slots:         \(report.slots)\(report.initialized ? "" : " (not initialised)")")
            Terminal.output("device secret: \(report.deviceSecret ? "present" : "missing") (\(directory.deviceSecrets.path))")
            Terminal.output("state:         \(report.state)")
            if let items = report.items, let folders = report.folders {
                Terminal.output("items:         \(items)")
                Terminal.output("folders:       \(folders)")
            }
        }
    }
}
