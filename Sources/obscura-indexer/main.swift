// obscura-indexer: the worker of docs/SEARCH.md §S3.4. It hardens itself before anything
// else (§S3.4.1, §S3.4.2), says `hello` on descriptor 3, and then answers one request at
// a time: pixels or tokens in, text or vectors out. It never sees a key, a vault path or
// the catalog. Its stdout and stderr are /dev/null: nothing it prints reaches a journal.
import CObscuraSandbox
#if canImport(Glibc)
import Glibc
#endif

/// The arguments the parent passes (§S3.4.1): `--role NAME --parent PID [--read DIR]…`.
/// Anything else is a parent's bug, and the worker exits before hardening.
func parseArguments() -> (role: Int32, parent: Int, reads: [String])? {
    var role: Int32 = 0
    var parent = -1
    var reads: [String] = []
    var rest = CommandLine.arguments.dropFirst().makeIterator()
    while let name = rest.next() {
        guard let value = rest.next() else { return nil }
        switch name {
        case "--role":
            switch value {
            case "index": role = Int32(OBSCURA_SANDBOX_ROLE_INDEX)
            case "query": role = Int32(OBSCURA_SANDBOX_ROLE_QUERY)
            case "fetch": role = Int32(OBSCURA_SANDBOX_ROLE_FETCH)
            default: return nil
            }
        case "--parent": parent = Int(value) ?? -1
        case "--read": reads.append(value)
        default: return nil
        }
    }
    return role != 0 && parent > 0 ? (role, parent, reads) : nil
}

guard let arguments = parseArguments() else { _exit(2) }
var landlockABI: Int32 = 0
let entered = arguments.reads.withCStringArray { paths in
    obscura_sandbox_enter(arguments.role, arguments.parent, paths, Int32(arguments.reads.count), &landlockABI)
}
// Each start step has its own status, 10 + its number, so a test can tell which refused.
guard entered == 0 else { _exit(10 + entered) }
Worker(landlockABI: landlockABI).run()
