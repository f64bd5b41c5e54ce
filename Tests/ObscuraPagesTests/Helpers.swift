import GRDB
import ObscuraCrypto
import ObscuraPages
import Testing

/// Runs `body` and returns the `PagesError` it throws (nil if it throws nothing).
func pagesError(_ body: () throws -> Void) -> PagesError? {
    do {
        try body()
        return nil
    } catch let error as PagesError {
        return error
    } catch {
        Issue.record("expected a PagesError, got \(error)")
        return nil
    }
}

/// The logical ids of page blocks in a commit, as page numbers.
func pageNumbers(in blocks: [Int: [UInt8]], pages: Int) -> Set<Int> {
    let ids = Set(blocks.keys)
    return Set((1...max(pages, 1)).filter { ids.contains(PageLayout.page($0)) })
}

/// Whether `haystack` contains `needle`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count, let first = needle.first else { return false }
    var i = 0
    while i <= haystack.count - needle.count {
        if haystack[i] == first, Array(haystack[i..<(i + needle.count)]) == needle { return true }
        i += 1
    }
    return false
}
