import ServiceLifecycle

/// Checks once a second for vaults idle past their auto-lock delay, for as long as the
/// server runs; locks every vault when it stops.
struct AutoLockService: Service {
    let store: SessionStore

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(min(1000, Int(store.minuteSeconds * 250))))
            store.sweep()
        }
        store.lockAll()
    }
}
