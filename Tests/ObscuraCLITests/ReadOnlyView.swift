import Foundation
import ObscuraTestSupport

/// A vault directory as a read-only medium shows it, for commands run on it: a read-only
/// bind mount as root (which ignores file modes), the directory's modes otherwise (put
/// back on release).
final class ReadOnlyView {
    /// Where the commands find the directory.
    let path: String
    private let mount: ScratchMount?
    private let source: String

    /// How the view was made, for reports: "ro-bind-mount" or "chmod".
    var kind: String { mount == nil ? "chmod" : "ro-bind-mount" }

    /// A view of `source` (a mount point under `parent`), or nil where root may not
    /// mount here: then the hardening report says test `name` of `suite` was skipped.
    init?(of source: String, parent: String, suite: String, name: String) throws {
        self.source = source
        if getuid() == 0 {
            guard ScratchMount.available else {
                Hardening.skip(suite, name, ScratchMount.unavailableReason)
                return nil
            }
            mount = try ScratchMount(readOnlyViewOf: source, parent: parent)
            path = mount!.path
        } else {
            mount = nil
            path = source
            for sub in ["/data", "/media", ""] { chmod(source + sub, 0o500) }
        }
    }

    deinit {
        if mount == nil { for sub in ["", "/data", "/media"] { chmod(source + sub, 0o700) } }
    }
}
