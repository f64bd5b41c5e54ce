import ArgumentParser
import ObscuraKit

/// `obscura init`: creates the vault directory with ten decoy slots.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the vault directory with ten decoy slots (and the device secret if needed).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let directory = try global.openDirectory(create: true)
        if directory.isInitialized {
            Terminal.output("Already initialised: \(directory.path) has \(try directory.slotCount()) slots; nothing changed.")
            return
        }
        Terminal.note("Creating \(SlotFormat.minimumSlotCount) slots in \(directory.path)...")
        try directory.initialize()
        Terminal.output("Initialised \(directory.path) with \(try directory.slotCount()) slots.")
        Terminal.output("Device secret: \(directory.deviceSecrets.path) (keep a copy: `obscura device-secret export`).")
    }
}
