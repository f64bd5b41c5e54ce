import Hummingbird
import ObscuraKit

/// `/api/backup` (docs/API.md, "Backup"): the directory's backup state, a backup now,
/// and how long after a change the next one starts. The backup covers the whole
/// directory, every vault alike, so any unlocked session sees and drives it.
struct BackupRoutes {
    let scheduler: BackupScheduler

    /// The delays the settings page offers, in seconds; 0 is "only when asked".
    static let offeredDelays = [0, 60, 300, 600, 1800, 3600]

    struct Settings: Codable { var afterSeconds: Int }

    func register(on router: Router<GalleryContext>) {
        router.get("/api/backup") { _, context -> Response in
            // The page polls this every 30 s, hidden or not: reading it is not use, or
            // an open tab would keep the vault from ever locking itself.
            _ = try context.vaultWithoutActivity()
            let scheduler = self.scheduler
            return try JSON.response(try await Blocking.run { scheduler.status() })
        }
        router.post("/api/backup") { _, context -> Response in
            _ = try context.vault()
            try requireSetUp()
            guard scheduler.requestNow() else { throw APIError(.conflict, "a backup is already running") }
            return Response(status: .accepted)
        }
        router.post("/api/backup/settings") { request, context -> Response in
            _ = try context.vault()
            let body = try await JSON.decode(Settings.self, from: request)
            try requireSetUp()
            guard Self.offeredDelays.contains(body.afterSeconds) else {
                throw APIError.badRequest("afterSeconds must be one of \(Self.offeredDelays.map(String.init).joined(separator: ", "))")
            }
            let scheduler = self.scheduler
            let saved = try await Blocking.run { try scheduler.setAfterSeconds(body.afterSeconds) }
            return try JSON.response(Settings(afterSeconds: saved.afterSeconds))
        }
    }

    private func requireSetUp() throws {
        guard scheduler.configuration != nil else {
            throw APIError(.conflict, "no backup is set up for this vault directory; run `obscura backup init REPO`")
        }
    }
}
