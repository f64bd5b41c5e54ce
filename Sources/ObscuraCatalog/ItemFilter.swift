import Foundation

/// What a page keeps of its scope: a search and its filters. Every condition set must
/// hold; the default keeps every item.
public struct ItemFilter: Sendable, Equatable {
    /// Favourites only.
    public var favoritesOnly: Bool
    /// Only items of this kind.
    public var kind: ItemKind?
    /// Only items captured (imported, when the capture date is unknown) at or after this
    /// time, in seconds since 1970.
    public var from: Double?
    /// Only items captured (or imported) before this time.
    public var before: Double?
    /// Only items whose name, place or note text (a note's body, docs/FORMAT.md §3.3,
    /// "Notes") holds this text, ignoring case.
    public var text: String?
    /// Only items whose place holds this text, ignoring case.
    public var place: String?

    /// A filter; blank texts are no condition.
    public init(favoritesOnly: Bool = false, kind: ItemKind? = nil, from: Double? = nil, before: Double? = nil,
                text: String? = nil, place: String? = nil) {
        self.favoritesOnly = favoritesOnly
        self.kind = kind
        self.from = from
        self.before = before
        self.text = Self.trimmed(text)
        self.place = Self.trimmed(place)
    }

    /// Whether `row` (its sealed fields opened) passes the filter: the same test as the
    /// catalog's query, for the pages worked out in Swift.
    package func keeps(_ row: ItemRecord) -> Bool {
        let key = row.takenAt ?? row.importedAt
        func holds(_ value: String?, _ needle: String) -> Bool {
            value?.range(of: needle, options: [.caseInsensitive]) != nil
        }
        if favoritesOnly && !row.favorite { return false }
        if let kind, row.kind != kind { return false }
        if let from, key < from { return false }
        if let before, key >= before { return false }
        // A view-limited note's text is not searched: it reads only through a counted view.
        let searchable = row.viewsLeft == nil ? row.noteText : nil
        if let text, !holds(row.name, text) && !holds(row.place, text) && !holds(searchable, text) { return false }
        if let place, !holds(row.place, place) { return false }
        return true
    }

    package var catalogFilter: Catalog.ListingFilter {
        Catalog.ListingFilter(favoritesOnly: favoritesOnly, kind: kind, from: from, before: before, text: text, place: place)
    }

    /// The start and the end (exclusive) of the year, month or day that `text` names
    /// (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`), in UTC, as seconds since 1970: capture dates
    /// are read from EXIF as UTC (`ImageInfo.takenAt`). Nil for anything else.
    public static func period(_ text: String) -> (start: Double, end: Double)? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        // Four digits, then two and two: "24" or "2024-1" is a typing slip, not year 24.
        guard (1...3).contains(fields.count), fields[0].count == 4, fields.dropFirst().allSatisfy({ $0.count == 2 }),
              fields.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        let parts = fields.map { Int($0) }
        guard let year = parts[0], (1...9999).contains(year) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let month = parts.count > 1 ? parts[1]! : 1
        let day = parts.count > 2 ? parts[2]! : 1
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.month, from: start) == month, calendar.component(.day, from: start) == day,
              let end = calendar.date(byAdding: parts.count == 1 ? .year : parts.count == 2 ? .month : .day, value: 1, to: start)
        else { return nil }
        return (start.timeIntervalSince1970, end.timeIntervalSince1970)
    }

    /// Blank text is no condition; control characters (a NUL among them, which SQLite
    /// would end the text at) are dropped, as no name holds one worth finding.
    private static func trimmed(_ text: String?) -> String? {
        let printable = text.map { String(String.UnicodeScalarView($0.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) })) }
        guard let text = printable?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
