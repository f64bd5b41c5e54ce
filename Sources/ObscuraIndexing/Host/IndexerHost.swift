import CObscuraSystem
import Foundation

/// The one long-lived thread that spawns every indexer role (docs/SEARCH.md §S3.4.1).
/// Linux ties the parent-death signal to the thread that created the child, so a role
/// spawned from a short-lived thread would be killed when that thread ends; this one
/// ends only with the process.
package final class IndexerHost: @unchecked Sendable {
    /// The process's one host.
    package static let shared = IndexerHost()

    private let condition = NSCondition()
    private var pending: [() -> Void] = []
    private var started = false

    /// Runs `work` on the host thread and returns its result.
    func run<T>(_ work: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: T?
        condition.lock()
        pending.append {
            result = work()
            done.signal()
        }
        if !started {
            started = true
            let thread = Thread { [self] in loop() }
            thread.name = "obscura.indexer-host"
            thread.start()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        return result!
    }

    private func loop() {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            let work = pending.removeFirst()
            condition.unlock()
            work()
        }
    }

    /// Spawns `path` with exactly `arguments` and `environment`, `socket` as its
    /// descriptor 3 (§S3.4.1). Returns the pid, or the errno.
    package func spawn(path: String, arguments: [String], environment: [String], socket: Int32) -> Result<pid_t, IndexerError> {
        run {
            Self.withCStrings(arguments) { argv in
                Self.withCStrings(environment) { envp in
                    var pid: Int32 = 0
                    let code = obscura_system_spawn_worker(path, argv, envp, socket, &pid)
                    return code == 0 ? .success(pid) : .failure(.spawnFailed(code))
                }
            }
        }
    }

    /// `strings` as a NULL-terminated array of C strings, for the call in `body`.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies + [nil])
    }
}
