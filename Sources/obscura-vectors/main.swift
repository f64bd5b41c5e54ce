// obscura-vectors: writes the test vectors of docs/FORMAT.md §5.
//
//     swift run obscura-vectors testdata
//
// Every random byte comes from SeededRandom, so a rerun reproduces each file exactly;
// the test suites check that the files on disk are what this program writes, and that
// every reader gives each file its expected outcome.
import Foundation
import ObscuraCrypto
import ObscuraKit
import ObscuraVectors

let root = CommandLine.arguments.dropFirst().first ?? "testdata"
let files = try VectorSet.all()
for (name, contents) in files.sorted(by: { $0.key < $1.key }) {
    let path = root + "/" + name
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(contents).write(to: URL(fileURLWithPath: path))
}
print("wrote \(files.count) vectors to \(root)")
