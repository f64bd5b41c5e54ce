/// Where each page and tag-tree node sits among a slot's logical blocks
/// (docs/FORMAT.md §9.4 "Logical ids").
///
/// The tree is written depth-first: upper m, then for each of its leaves the leaf and
/// its 252 pages. A catalog that grows only appends ids, and the ids of P pages are
/// exactly `0 ..< page(P) + 1`.
package enum PageLayout {
    private static let t = PagesFormat.tagsPerNode
    /// §9: the logical ids one upper node spans, itself included: 1 + T·(T+1).
    package static let upperSpan = 1 + t * (t + 1)

    /// §9: the header's id.
    package static let header = 0

    /// §9: the id of upper node `m`, 1 + 63,757·m.
    package static func upper(_ m: Int) -> Int { 1 + m * upperSpan }

    /// §9: the id of leaf `n`.
    package static func leaf(_ n: Int) -> Int { upper(n / t) + 1 + (n % t) * (t + 1) }

    /// §9: the id of page `k` (1-based).
    package static func page(_ k: Int) -> Int {
        precondition(k >= 1, "pages are numbered from 1")
        let i = k - 1
        return leaf(i / t) + 1 + i % t
    }

    /// The leaf that holds page `k`.
    package static func leafIndex(ofPage k: Int) -> Int { (k - 1) / t }

    /// The upper node that holds leaf `n`.
    package static func upperIndex(ofLeaf n: Int) -> Int { n / t }

    /// Leaves a catalog of `pages` pages has.
    package static func leafCount(pages: Int) -> Int { (pages + t - 1) / t }

    /// Upper nodes a catalog of `pages` pages has, ⌈P / T²⌉.
    package static func upperCount(pages: Int) -> Int { (leafCount(pages: pages) + t - 1) / t }

    /// Logical blocks a catalog of `pages` pages uses: the header alone when empty.
    package static func logicalCount(pages: Int) -> Int { pages == 0 ? 1 : page(pages) + 1 }
}
