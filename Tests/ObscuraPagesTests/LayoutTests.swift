import ObscuraPages
import Testing

@Suite struct LayoutTests {
    /// The ids at the 252/253 and the upper-node boundaries, worked out by hand from §9.
    @Test func boundaries() {
        #expect(PageLayout.upper(0) == 1)
        #expect(PageLayout.leaf(0) == 2)
        #expect(PageLayout.page(1) == 3)
        #expect(PageLayout.page(252) == 254)
        #expect(PageLayout.leaf(1) == 255)
        #expect(PageLayout.page(253) == 256)
        #expect(PageLayout.leaf(251) == 63_505)
        #expect(PageLayout.page(63_504) == 63_757)
        #expect(PageLayout.upper(1) == 63_758)
        #expect(PageLayout.leaf(252) == 63_759)
        #expect(PageLayout.page(63_505) == 63_760)
        #expect(PageLayout.upper(239) == 1 + 239 * 63_757)
        #expect(PageLayout.logicalCount(pages: PagesFormat.maxPages) == 240 * 63_757 + 1)
        #expect(PageLayout.logicalCount(pages: 0) == 1)
        #expect(PageLayout.upperCount(pages: 63_504) == 1)
        #expect(PageLayout.upperCount(pages: 63_505) == 2)
        #expect(PageLayout.leafCount(pages: 252) == 1)
        #expect(PageLayout.leafCount(pages: 253) == 2)
    }

    /// For two upper nodes' worth of pages, every id is used exactly once and the ids of
    /// P pages are exactly 0 ..< logicalCount(P).
    @Test func idsAreDenseAndDistinct() {
        let t = PagesFormat.tagsPerNode
        let count = 2 * t * t
        var seen = [Bool](repeating: false, count: PageLayout.logicalCount(pages: count))
        seen[0] = true
        for m in 0..<PageLayout.upperCount(pages: count) {
            #expect(!seen[PageLayout.upper(m)])
            seen[PageLayout.upper(m)] = true
        }
        for n in 0..<PageLayout.leafCount(pages: count) {
            #expect(!seen[PageLayout.leaf(n)])
            seen[PageLayout.leaf(n)] = true
        }
        var highest = 0
        for k in 1...count {
            let id = PageLayout.page(k)
            #expect(!seen[id])
            seen[id] = true
            #expect(id > highest)
            highest = id
        }
        #expect(seen.allSatisfy { $0 })
    }
}
