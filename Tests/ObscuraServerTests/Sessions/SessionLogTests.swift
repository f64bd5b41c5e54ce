import Foundation
import Logging
import ObscuraCrypto
import ObscuraKit
import Testing
@testable import ObscuraServer

/// Nothing the server logs at its default level tells how many vaults are open.
@Suite struct SessionLogTests {
    @Test func autoLockingSeveralVaultsLogsNothingAtInfo() throws {
        let harness = try ServerHarness()
        let records = LogRecords()
        let store = SessionStore(
            directory: harness.directory, minuteSeconds: 0.05, iterations: testIterations,
            logger: Logger(label: "test") { _ in RecordingHandler(records: records) })
        for password in ["one", "two", "three"] {
            let secret = SecureBytes(copying: Array(password.utf8))
            try harness.directory.createVault(password: secret, iterations: testIterations).lock()
            try store.unlock(store.newSession(), password: secret)
        }
        Thread.sleep(forTimeInterval: 0.3)
        store.sweep()
        let counting = records.all.filter { $0.level >= .info }
        #expect(counting.isEmpty, "\(counting.map(\.message))")
        // The sweep did lock them (and said so at debug, once).
        #expect(records.all.filter { $0.message.contains("auto-lock") }.count == 1)
    }
}

/// Log records kept by ``RecordingHandler``.
final class LogRecords: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var records: [(level: Logger.Level, message: String)] = []
    var all: [(level: Logger.Level, message: String)] { lock.withLock { records } }
    func append(_ level: Logger.Level, _ message: String) { lock.withLock { records.append((level, message)) } }
}

/// A log handler that keeps every record, at every level.
struct RecordingHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(event.level, "\(event.message)")
    }
}
