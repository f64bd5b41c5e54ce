import Foundation
import ObscuraCatalog

/// When an item ends (issue 19; docs/FORMAT.md §3.3, "Ends"): at a time, after so many
/// views in the viewer, or whichever comes first. An ended item is deleted for good, its
/// row and its pool files, without passing through the trash.
public struct ItemEnd: Sendable, Equatable {
    /// The moment the item ends; nil for no end in time.
    public var at: Date?
    /// How many times the viewer may open it; nil for no end in views.
    public var views: Int?

    /// The most views an end may allow.
    public static let maximumViews = 1_000
    /// How long the last view may stay open (§3.3, "Ends"): the item ends when the viewer
    /// closes, and at the latest this long after the view was opened, so that a page
    /// closed without a word (a crash, a lost tab) does not keep it.
    public static let lastViewLimit: TimeInterval = 10 * 60

    /// An end at `at`, after `views` views, or both; at least one of them.
    public init(at: Date? = nil, views: Int? = nil) {
        self.at = at
        self.views = views
    }

    /// Checks the end against `now`: at least one part, a time still to come, a view
    /// count in 1 … ``maximumViews``.
    func validated(now: Date) throws -> ItemEnd {
        guard at != nil || views != nil else { throw VaultError.invalidEnd("give a time, a number of views, or both") }
        if let at, at <= now { throw VaultError.invalidEnd("that time has passed") }
        if let views, !(1...Self.maximumViews).contains(views) {
            throw VaultError.invalidEnd("views must be 1 to \(Self.maximumViews)")
        }
        return self
    }
}

extension ItemRecord {
    /// Whether the item has ended at `now`: its time passed, or its last view is taken
    /// (then it ends when the viewer closes; ``ItemEnd/lastViewLimit`` bounds the wait).
    public func hasEnded(at now: Date) -> Bool {
        if let endsAt, endsAt <= now.timeIntervalSince1970 { return true }
        return false
    }

    /// Whether the viewer is taking its last view of the item (a count below 0, which no
    /// writer makes, reads as that too: never as more views).
    public var isInLastView: Bool { viewsLeft.map { $0 <= 0 } ?? false }

    /// Whether the item may be seen only through the viewer, one counted view at a time.
    public var isViewLimited: Bool { viewsLeft != nil }
}
