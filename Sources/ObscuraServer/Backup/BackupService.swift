import ServiceLifecycle

/// Ticks the backup schedule twice a second for as long as the server runs; stops a
/// running backup when it stops.
struct BackupService: Service {
    let scheduler: BackupScheduler

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(500))
            let scheduler = self.scheduler
            _ = try? await Blocking.run { scheduler.tick() }
        }
        let scheduler = self.scheduler
        _ = try? await Blocking.run { scheduler.stop() }
    }
}
