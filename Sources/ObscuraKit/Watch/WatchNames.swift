import Foundation

/// Which names in a watched folder are never sealed (docs/PHONE.md §W2.3, first two rows):
/// the temporaries and metadata files that sync tools, browsers and editors leave while
/// they write, so that a file is taken under its final name, once.
package enum WatchNames {
    /// Ends of names that a writer gives a file it has not finished (compared without case).
    static let temporarySuffixes = [".part", ".partial", ".crdownload", ".download", ".tmp", "~"]
    /// Whole names of metadata files (compared without case).
    static let metadataNames: Set<String> = ["thumbs.db", "desktop.ini"]

    /// Whether the entry `name` (raw bytes, as the kernel gives them) is skipped: a name
    /// starting with `.` (files and directories alike: Syncthing's `.syncthing.*.tmp` and
    /// `.stversions`, rsync's `.NAME.XXXXXX`, `.thumbnails`), a temporary's suffix,
    /// an Office lock file (`~$…`), or a metadata file.
    package static func isSkipped(_ name: [UInt8]) -> Bool {
        guard let first = name.first else { return true }
        if first == UInt8(ascii: ".") { return true }
        if name.starts(with: Array("~$".utf8)) { return true }
        // Lower-cased ASCII only: a name that is not UTF-8 is compared as the bytes it is.
        let lowered = name.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        if metadataNames.contains(where: { Array($0.utf8) == lowered }) { return true }
        return temporarySuffixes.contains { lowered.count > $0.utf8.count && lowered.suffix($0.utf8.count).elementsEqual($0.utf8) }
    }
}
