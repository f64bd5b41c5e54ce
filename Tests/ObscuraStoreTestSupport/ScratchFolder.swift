import Foundation

/// A new folder in the system's temporary directory, removed with everything in it when
/// the value goes: for the store's tests that write real files.
package final class ScratchFolder {
    /// Where it is.
    package let path: String

    /// Makes the folder.
    package init() throws {
        path = FileManager.default.temporaryDirectory.path + "/obscura-store-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
