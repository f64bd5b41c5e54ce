import ArgumentParser
import Foundation
import ObscuraCatalog
import ObscuraKit

/// `obscura end ID... --in DURATION | --views N | --never`: gives items an end (issue 19;
/// docs/FORMAT.md §3.3, "Ends"). An ended item is deleted for good, without the trash.
struct EndCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end", abstract: "Give items an end: deleted for good after a time, or after so many views.",
        discussion: """
            With --in, the items are deleted for good that long from now (90s, 30m, 12h, \
            7d, 2w). With --views, after they have been opened that many times: in the \
            gallery's viewer (the last view ends when the viewer closes it, and at the latest \
            10 minutes after it opened), or by `obscura get` and `obscura cat`, each of \
            which counts as one view. Both together: whichever comes first. An item with \
            views shows no thumbnail and cannot be downloaded from the gallery. Ends are \
            kept by exports, and enforced whenever the vault is open: those that passed \
            while it was locked at the next unlock. --never takes an end away.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passwords: PasswordOptions
    @OptionGroup var item: ItemOptions

    @Option(name: .customLong("in"), help: ArgumentHelp("End after this long: a number and s, m, h, d or w.", valueName: "duration"))
    var after: String?

    @Option(help: ArgumentHelp("End after this many views (1 to \(ItemEnd.maximumViews)).", valueName: "n"))
    var views: Int?

    @Flag(help: "Take the end away.")
    var never = false

    @Argument(help: "Item ids (or unique prefixes).")
    var ids: [String]

    func validate() throws {
        if never && (after != nil || views != nil) { throw ValidationError("--never takes no --in or --views") }
        if !never && after == nil && views == nil { throw ValidationError("give --in, --views, or --never") }
        if let after, Self.seconds(after) == nil { throw ValidationError("--in takes a number and s, m, h, d or w, as 30m or 7d") }
    }

    func run() throws {
        let session = try VaultSession(global: global, passwords: passwords)
        _ = try session.folder(item.folder)
        let now = Date()
        let end = never ? nil : ItemEnd(at: after.flatMap(Self.seconds).map { now.addingTimeInterval($0) }, views: views)
        try session.vault.setEnd(ids, end, now: now)
        let items = "\(ids.count) item\(ids.count == 1 ? "" : "s")"
        guard let end else { return Terminal.output("Took the end away from \(items).") }
        var parts: [String] = []
        if let at = end.at { parts.append("at \(Format.date(at.timeIntervalSince1970) ?? "")") }
        if let views = end.views { parts.append("after \(views) view\(views == 1 ? "" : "s")") }
        Terminal.output("\(items.prefix(1).uppercased() + items.dropFirst()) will be deleted for good \(parts.joined(separator: " or ")).")
    }

    /// Seconds in `text`: a positive whole number and a unit (s, m, h, d, w).
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count > 0,
              count <= 100 * 365 * 86400 / Int(unit) else { return nil }
        return Double(count) * unit
    }

    /// Runs `body` with `record` inside a counted view when it has an end in views (`get`,
    /// `cat`): counted before any byte is written out, and deleted for good afterwards
    /// when that was its last view, saying so.
    static func viewing(_ record: ItemRecord, in vault: Vault, _ body: () throws -> Void) throws {
        guard record.isViewLimited else { return try body() }
        let opened = try vault.openView(record.id)
        try body()
        if try vault.closeView(record.id) {
            Terminal.note("That was its last view: the item is deleted for good.")
        } else if let left = opened.viewsLeft {
            Terminal.note("\(left) view\(left == 1 ? "" : "s") left before the item is deleted for good.")
        }
    }
}
