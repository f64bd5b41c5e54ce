import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura export -o FILE`: writes the vault to an `.obscura` file.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export the vault to an .obscura file protected by an export password.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var strength: PasswordStrengthCheck
    @OptionGroup var kdf: KDFOption

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (must not exist).", valueName: "file"))
    var output: String

    @Flag(help: "Generate a 20-character export password and print it once.")
    var generatePassword = false

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        let cost = kdf.forExport(of: session.vault)
        let password: SecureBytes
        if generatePassword {
            password = ExportFormat.generatePassword()
            // Sized up front and written as is: growing the array, or a `Data` copy, would
            // leave the password in freed memory.
            let label = Array("Export password (shown once; keep it apart from the file): ".utf8)
            let line = SecureBytes(count: label.count + password.count + 1)
            line.withUnsafeMutableBytes { out in
                out.copyBytes(from: label)
                password.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[label.count...]).copyMemory(from: $0) }
                out[out.count - 1] = UInt8(ascii: "\n")
            }
            try line.withUnsafeBytes { try FileHandle.standardOutput.write(contentsOf: $0) }
        } else {
            password = try passwords.new("New export password: ")
            // Judged in the form the key is derived from: a password shaped like a generated
            // one is canonicalised (upper case, no dashes) before the KDF (FORMAT §7.2).
            let canonical = ExportFormat.canonicalPassword(password)
            // The typed password itself when it is used as typed: not to be wiped here.
            defer { if canonical !== password { canonical.zeroize() } }
            try strength.check(canonical, cost: PasswordKDFCost(cost), interactive: !passwords.passwordStdin)
        }
        let bar = ProgressBar()
        try session.vault.exportVault(to: output, password: password, kdf: cost) { done, total in
            bar.update(label: "Exporting", done: Int64(done), total: Int64(total),
                       detail: "\(Format.bytes(Int64(done))) of \(Format.bytes(Int64(total)))")
        }
        bar.finish()
        Terminal.output("Exported \(try session.vault.catalog.counts().items) items to \(output).")
    }
}

/// `obscura import FILE`: places an exported vault into a free decoy slot.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import an .obscura export into a free slot; it opens with its original password.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    @Argument(help: "The .obscura file.")
    var file: String

    func run() throws {
        let directory = try global.openLiveDirectory()
        let password = try passwords.existing("Export password: ")
        let bar = ProgressBar()
        let items = try directory.importVault(from: file, password: password) { done, total in
            bar.update(label: "Importing", done: Int64(done), total: Int64(total),
                       detail: "\(Format.bytes(Int64(done))) of \(Format.bytes(Int64(total)))")
        }
        bar.finish()
        Terminal.output("Imported a vault with \(items) item\(items == 1 ? "" : "s"). It opens with its original vault password.")
    }
}
