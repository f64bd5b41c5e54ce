import ArgumentParser
import Foundation
import ObscuraKit
import ObscuraStore
import ObscuraKeys

/// `obscura init`: creates the vault directory, a version 4 container of ten decoy
/// slots under a new outer key (docs/FORMAT.md §4, §8).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the vault directory: ten decoy slots under a new outer key (and the decoy secret if needed).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOption
    @OptionGroup var testKDF: TestKDFOption

    func validate() throws {
        if kdf.kdf != nil && testKDF.iterations != nil { throw ValidationError("--kdf and --test-kdf-iterations do not go together") }
    }

    func run() throws {
        let existed = FileManager.default.fileExists(atPath: global.vaultPath())
        let directory = try global.openDirectory(create: true)
        if directory.isInitialized {
            Terminal.output("Already initialised: \(directory.path) has \(try directory.slotCount()) slots; nothing changed.")
            try kdf.requireMatching(directory)
            return
        }
        let setup = KeySetup(global: global)
        do {
            let new = try setup.newOuterKey()
            do {
                try setup.refuseOuterKeyEqualToDecoySecret(new, directory)
                Terminal.note("Creating \(SlotFormat.minimumSlotCount) slots in \(directory.path)...")
                let hadDecoySecret = (try? directory.deviceSecrets.loadIfPresent()) != nil
                try directory.initialize(kdf: testKDF.parameters() ?? kdf.forVaults, outerKey: new.key)
                if !hadDecoySecret && directory.deviceSecrets is KeyringDecoySecret {
                    // A user who keeps D off the machine gets a second one here, silently
                    // otherwise: importing the first later would replace this one.
                    Terminal.note("""
                        note: created a new decoy secret in the keyring. If you keep your decoy secret \
                        off this machine, directories made before need that one to create or destroy vaults.
                        """)
                }
            } catch {
                // Only a key that opens nothing yet may go: a creation that renamed some
                // slots into place needs it to be finished.
                if !directory.isInitialized { setup.discard(new) }
                throw error
            }
            Terminal.output("Initialised \(directory.path) with \(try directory.slotCount()) slots.")
            Terminal.output("Decoy secret: \(directory.deviceSecrets.location) (keep a copy: `obscura keys export decoy`).")
            try setup.confirmExport(new)
        } catch {
            // A directory this run made and left without slots goes again (only if empty).
            if !existed && !directory.isInitialized {
                for path in [directory.path + "/data", directory.mediaPath, directory.path] { rmdir(path) }
            }
            throw error
        }
    }
}
