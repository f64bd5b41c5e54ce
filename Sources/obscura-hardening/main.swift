// obscura-hardening: the worker of the crash kill loop (scripts/crash-kill) and the
// concurrency stress run (scripts/tsan).
//
//     obscura-hardening crash-setup DIR FIXTURES   a workspace with two real vaults
//     obscura-hardening crash-op DIR               one write; prints "go OP" when it starts
//     obscura-hardening crash-check DIR            audits DIR; one JSON line; exit 1 on a violation
//     obscura-hardening stress DIR [SECONDS]       imports, reads, deletes and locks racing
import Foundation
import ObscuraCrypto

MemoryTuning.keepLargeBuffersOnHeap()
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("crash-setup", 3):
        try CrashWorker.setUp(Workspace(root: arguments[1]), fixtures: arguments[2])
    case ("crash-op", 2):
        try CrashWorker.op(Workspace(root: arguments[1]))
    case ("crash-check", 2):
        exit(try CrashWorker.check(Workspace(root: arguments[1])) ? 0 : 1)
    case ("stress", 2), ("stress", 3):
        let seconds = arguments.count == 3 ? Double(arguments[2]) ?? 10 : 10
        exit(try StressRun(root: arguments[1], seconds: seconds).run() ? 0 : 1)
    default:
        FileHandle.standardError.write(Data("usage: obscura-hardening crash-setup|crash-op|crash-check|stress DIR ...\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("obscura-hardening: \(error)\n".utf8))
    exit(2)
}
