import ArgumentParser
import Foundation
import ObscuraCatalog
import ObscuraKit

/// The search and filters of `obscura ls` (issue 17), as the gallery's search has them.
struct SearchOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only items whose name, place or note text holds this text (any case).", valueName: "text"))
    var search: String?

    @Option(help: ArgumentHelp("Only items captured on or after this day (YYYY, YYYY-MM or YYYY-MM-DD, UTC).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only items captured on or before this day, month or year (as --from).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Only items of this kind: photo, video, file or note.", valueName: "kind"))
    var kind: ItemKind?

    @Flag(help: "Only favourites.")
    var favorites = false

    @Option(help: ArgumentHelp("Only items whose place holds this text (any case).", valueName: "text"))
    var place: String?

    /// The filter these options ask for.
    func filter() throws -> ItemFilter {
        let filter = ItemFilter(favoritesOnly: favorites, kind: kind, from: try from.map { try Self.day($0, option: "--from").start },
                                before: try to.map { try Self.day($0, option: "--to").end }, text: search, place: place)
        if let start = filter.from, let end = filter.before, start >= end {
            throw ValidationError("--from \(from ?? "") is after --to \(to ?? ""): nothing could match.")
        }
        return filter
    }

    /// Checked as the command line is parsed, so that a mistake prints this command's usage.
    func validate() throws { _ = try filter() }

    static func day(_ text: String, option: String) throws -> (start: Double, end: Double) {
        guard let period = ItemFilter.period(text) else {
            throw ValidationError("\(option) takes a date as YYYY, YYYY-MM or YYYY-MM-DD, not \"\(text)\".")
        }
        return period
    }
}

extension ItemKind: ExpressibleByArgument {}
