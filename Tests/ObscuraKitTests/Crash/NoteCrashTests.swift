import Foundation
import Testing
@testable import ObscuraKit

/// A note's edit (issue 19, item 1), stopped at every one of its durable steps: the new
/// body sealed, the catalog committed, the old body removed. Every stop leaves the note
/// as it was or as edited, its body whole (the harness decrypts every named file).
@Suite struct NoteCrashTests {
    @Test func editANote() throws {
        try CrashAtEveryStepTests().expectOldOrNew(minimumSteps: 4, setUp: { fixture in
            try fixture.a.addNote(title: "Before", body: "the old text")
        }, write: { fixture in
            let note = try #require(try fixture.a.items().first { $0.record.kind == .note })
            try fixture.a.editNote(note.record.id, title: "After", body: "the new text, longer")
        })
    }

    @Test func addANote() throws {
        try CrashAtEveryStepTests().expectOldOrNew(minimumSteps: 4) { fixture in
            try fixture.a.addNote(title: "New", body: "# New\nwritten at a crash")
        }
    }
}
