import Foundation
import Testing
@testable import ObscuraKit

/// The in-memory file a note is edited in (issue 40 point 2): an editor that copies its
/// mode to a backup or undo file must copy the owner's alone, not memfd's default 0777.
@Suite struct InMemoryFileTests {
    @Test func itIsTheOwnersAloneAndHoldsWhatWasWritten() throws {
        let file = try InMemoryFile(name: "obscura-test")
        var st = stat()
        #expect(fstat(file.descriptor, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o600)
        try file.write(Array("a note\n".utf8))
        #expect(try file.contents() == Array("a note\n".utf8))
    }
}
