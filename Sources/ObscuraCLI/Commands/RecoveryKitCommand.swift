import ArgumentParser
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraKeys

/// `obscura recovery-kit -o FILE`: a one-page HTML sheet to print and keep, with the
/// outer key's 24 words and text, the backup repository if one is set up, and blank
/// lines for the passwords (issue 19 item 5). The decoy secret only on request: whoever
/// holds it can count the vaults.
struct RecoveryKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-kit",
        abstract: "Write a one-page sheet to print: the outer key's 24 words, the backup repository, lines for the passwords.",
        discussion: """
            The sheet opens every vault of this directory together with a vault's password: \
            print it, keep the paper apart from the computer and its backups, and delete the \
            file. It is created mode 0600 and never replaces a file.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("The HTML file to create.", valueName: "file"))
    var output: String

    @Flag(name: .customLong("include-decoy-secret"), help: "Add the decoy secret's words (whoever holds it can count the vaults).")
    var includeDecoySecret = false

    func run() throws {
        let outer = try KeysCommand.currentKey(.outer, global: global).key
        let decoy = includeDecoySecret ? try KeysCommand.currentKey(.decoy, global: global).key : nil
        let directory = BackupConfigurationStore.canonical(global.vaultPath())
        let backup = try? BackupConfigurationStore.default().load(directory: directory)
        let sheet = RecoveryKitSheet(directory: directory, outer: outer, decoy: decoy, backup: backup?.repository.shown)
        let page = sheet.html()
        let fd = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CLIError("cannot create \(output): \(String(cString: strerror(errno)))\(errno == EEXIST ? " (a recovery kit never replaces a file)" : "")")
        }
        defer { close(fd) }
        try page.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw CLIError("cannot write \(output): \(String(cString: strerror(errno)))") }
                done += n
            }
        }
        guard fsync(fd) == 0 else { throw CLIError("cannot write \(output): \(String(cString: strerror(errno)))") }
        Terminal.output("Wrote the recovery kit to \(output) (mode 0600). Print it, keep the paper apart from this computer and its backups, then delete the file.")
        if decoy != nil { Terminal.note("warning: the sheet holds the decoy secret: whoever reads it can count the vaults of this directory.") }
    }
}

/// The recovery kit's page: plain HTML and print CSS, nothing fetched from elsewhere.
/// Its secrets are copied from their zeroing buffers into the page's, never into a String.
struct RecoveryKitSheet {
    let directory: String
    let outer: SecureBytes
    let decoy: SecureBytes?
    let backup: String?

    func html() -> SecureBytes {
        let page = SecureBuffer(capacity: 16 << 10)
        func add(_ text: String) { for byte in text.utf8 { page.append(byte) } }
        func add(_ secret: SecureBytes) { secret.withUnsafeBytes { for byte in $0 { page.append(byte) } } }
        func words(_ key: SecureBytes, label: String) {
            add("<ol class=\"words\" aria-label=\"\(label)\">")
            KeyWords.encode(key).withUnsafeBytes { raw in
                for word in raw.split(separator: UInt8(ascii: " ")) {
                    add("<li>")
                    for byte in word { page.append(byte) }
                    add("</li>")
                }
            }
            add("</ol>")
        }
        let date = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate])
        add("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="referrer" content="no-referrer">
            <title>Obscura recovery kit</title>
            <style>
            @page { size: A4; margin: 14mm; }
            body { font: 11pt/1.4 system-ui, sans-serif; color: #000; max-width: 180mm; margin: 0 auto; }
            h1 { font-size: 18pt; margin: 0 0 2mm; } h2 { font-size: 12pt; margin: 6mm 0 2mm; }
            .muted { color: #444; font-size: 9.5pt; }
            .words { columns: 4; column-gap: 6mm; padding-left: 7mm; font: 12pt/1.7 ui-monospace, monospace; margin: 0; }
            .key { font: 10.5pt ui-monospace, monospace; word-break: break-all; }
            .line { border-bottom: 1px solid #000; height: 9mm; margin-bottom: 2mm; }
            .box { border: 1px solid #000; padding: 3mm 4mm; }
            </style></head><body>
            <h1>Obscura recovery kit</h1>
            <p class="muted">Made \(date) for the vault directory <code>\(escape(directory))</code>. Whoever holds this
            sheet and a vault's password opens that vault: keep it apart from the computer and its backups.</p>
            <div class="box"><h2>Outer key: 24 words</h2>
            """)
        words(outer, label: "The outer key's words")
        add("<p class=\"muted\">The same key as text:</p><p class=\"key\">")
        add(KeyText.encode(outer, kind: .outer))
        add("</p></div>\n")
        add("<h2>Backup</h2>")
        if let backup {
            add("<p>Repository: <code>\(escape(backup))</code></p>")
        } else {
            add("<p class=\"muted\">No backup was set up when this sheet was made. Repository:</p><div class=\"line\"></div>")
        }
        add("<p>Backup password (20 symbols, shown once by <code>obscura backup init</code>):</p><div class=\"line\"></div>\n")
        add("<h2>Vault passwords</h2><p class=\"muted\">Only if you choose to write them here.</p><div class=\"line\"></div><div class=\"line\"></div>\n")
        if let decoy {
            add("<div class=\"box\"><h2>Decoy secret: 24 words</h2><p class=\"muted\">Needed only to create or destroy vaults. Whoever holds it can count the vaults of this directory.</p>")
            words(decoy, label: "The decoy secret's words")
            add("</div>\n")
        }
        add("""
            <h2>To recover on a new computer</h2>
            <ol class="muted">
            <li>Install Obscura; restore the directory: <code>obscura backup restore latest --repo REPOSITORY --to DIRECTORY</code> (asks for the backup password).</li>
            <li>Give it the outer key: <code>obscura --vault DIRECTORY keys import outer</code>, then type the 24 words (or the key text).</li>
            <li>Open your vault with its password: <code>obscura --vault DIRECTORY status --unlock</code>, or <code>obscura serve</code>.</li>
            </ol>
            </body></html>

            """)
        return page.take()
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
