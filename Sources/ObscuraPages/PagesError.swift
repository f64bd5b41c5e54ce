import ObscuraCrypto

/// Errors of the paged catalog. Messages name what failed and where (a page number, a
/// node index), never a key or a page's contents.
public enum PagesError: ObscuraError, Equatable {
    /// The sealed root in the header did not open or decode: a wrong key, an altered
    /// header, or a header of another format.
    case damagedRoot(String)
    /// Page `page` did not verify against the tag tree or did not open.
    case damagedPage(page: Int)
    /// Tag-tree node `index` of `level` (1 leaf, 2 upper) did not verify, open or decode.
    case damagedNode(level: Int, index: Int)
    /// An operation the format does not allow (a partial page write, nonzero reserved
    /// bytes, a header prefix of the wrong size).
    case unsupported(String)
    /// The database would outgrow the format's 15,240,960 pages.
    case tooLarge(pages: Int)
    /// A store commit failed earlier: this catalog object refuses everything until its
    /// owner reopens it from the store, which still holds the last committed state.
    case broken

    /// A message fit to show a person; it names pages and nodes, never their contents.
    public var description: String {
        switch self {
        case let .damagedRoot(reason): return "catalog root is damaged: \(reason)"
        case let .damagedPage(page): return "catalog page \(page) is damaged (altered, swapped or older than its tree)"
        case let .damagedNode(level, index):
            return "catalog \(level == 1 ? "leaf" : "upper") node \(index) is damaged (altered, swapped or older than its tree)"
        case let .unsupported(what): return "unsupported catalog operation: \(what)"
        case let .tooLarge(pages): return "catalog would hold \(pages) pages, more than the format allows"
        case .broken: return "catalog is unusable after a failed commit; reopen it"
        }
    }
}
