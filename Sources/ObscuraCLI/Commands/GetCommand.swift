import ArgumentParser
import Foundation
import ObscuraCatalog
import ObscuraCrypto
import ObscuraKit

/// Options naming one item, and the protected folder it may be in.
struct ItemOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Unlock this protected folder first (its password is read next).", valueName: "name"))
    var folder: String?
}

/// Which file of an item `get` and `cat` decrypt.
struct FileChoice: ParsableArguments {
    @Flag(help: "The pair's second file (a Live Photo's motion, the RAW taken with a JPEG) instead of the photo.")
    var companion = false

    /// `record`, or its second file with `--companion`.
    func file(of record: ItemRecord) throws -> ItemRecord {
        guard companion else { return record }
        guard let other = record.companion else { throw CLIError("this item has no second file (it is not a Live Photo or RAW+JPEG pair)") }
        return other
    }
}

/// `obscura get ID -o FILE`: decrypts an item to a file.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Decrypt an item to a file.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var item: ItemOptions
    @OptionGroup var choice: FileChoice

    @Argument(help: "Item id (or a unique prefix of at least 4 characters).")
    var id: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (must not exist).", valueName: "file"))
    var output: String

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(item.folder)
        let row = try session.vault.item(id)
        let record = try choice.file(of: row)
        guard !FileManager.default.fileExists(atPath: output) else {
            throw CLIError("\(output) already exists; not overwritten")
        }
        // Written under a temporary name beside the target, renamed when complete.
        let temporary = output + ".obscura-partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: temporary)
        else { throw CLIError("cannot create \(output)") }
        do {
            try EndCommand.viewing(row, in: session.vault) {
                try session.vault.export(record) { try handle.write(contentsOf: $0) }
                try handle.synchronize()
                try handle.close()
                try FileManager.default.moveItem(atPath: temporary, toPath: output)
            }
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        Terminal.output("Wrote \(Format.bytes(record.size)) to \(output).")
    }
}

/// `obscura cat ID`: decrypts an item to standard output.
struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cat", abstract: "Decrypt an item to standard output.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var item: ItemOptions
    @OptionGroup var choice: FileChoice

    @Argument(help: "Item id (or a unique prefix of at least 4 characters).")
    var id: String

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(item.folder)
        let row = try session.vault.item(id)
        let record = try choice.file(of: row)
        try EndCommand.viewing(row, in: session.vault) {
            try session.vault.export(record) { try FileHandle.standardOutput.write(contentsOf: $0) }
        }
    }
}
