import Foundation

/// restic's `--json` lines during a backup (restic 0.14, `message_type` `status`,
/// `error` and `summary`). Fields restic leaves out decode as nil.
struct ResticStatus: Decodable {
    let percentDone: Double?
    let totalFiles: Int64?
    let filesDone: Int64?
    let totalBytes: Int64?
    let bytesDone: Int64?
    let secondsRemaining: Int64?

    enum CodingKeys: String, CodingKey {
        case percentDone = "percent_done", totalFiles = "total_files", filesDone = "files_done"
        case totalBytes = "total_bytes", bytesDone = "bytes_done", secondsRemaining = "seconds_remaining"
    }
}

/// The `summary` line that ends a backup.
struct ResticSummary: Decodable {
    let snapshotID: String
    let filesNew: Int64
    let filesChanged: Int64
    let filesUnmodified: Int64
    let dataAdded: Int64
    let totalFilesProcessed: Int64
    let totalBytesProcessed: Int64
    let totalDuration: Double

    enum CodingKeys: String, CodingKey {
        case snapshotID = "snapshot_id", filesNew = "files_new", filesChanged = "files_changed"
        case filesUnmodified = "files_unmodified", dataAdded = "data_added"
        case totalFilesProcessed = "total_files_processed", totalBytesProcessed = "total_bytes_processed"
        case totalDuration = "total_duration"
    }
}

/// An `error` line: a file restic could not read.
struct ResticFileError: Decodable {
    let during: String?
    let item: String?
}

/// One line of a backup's output, by its `message_type`.
enum ResticMessage {
    case status(ResticStatus)
    case summary(ResticSummary)
    case error(ResticFileError)

    private struct Kind: Decodable {
        let messageType: String
        enum CodingKeys: String, CodingKey { case messageType = "message_type" }
    }

    /// The message on `line`, or nil for anything else (restic's plain text).
    init?(line: String) {
        guard line.hasPrefix("{") else { return nil }
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        guard let kind = try? decoder.decode(Kind.self, from: data) else { return nil }
        switch kind.messageType {
        case "status": guard let m = try? decoder.decode(ResticStatus.self, from: data) else { return nil }; self = .status(m)
        case "summary": guard let m = try? decoder.decode(ResticSummary.self, from: data) else { return nil }; self = .summary(m)
        case "error": guard let m = try? decoder.decode(ResticFileError.self, from: data) else { return nil }; self = .error(m)
        default: return nil
        }
    }
}

/// How far a backup has come, for a progress bar.
public struct BackupProgress: Sendable, Equatable {
    /// Bytes of the directory read so far.
    public var bytesDone: Int64
    /// Bytes in the directory.
    public var totalBytes: Int64
    /// Files read so far.
    public var filesDone: Int64
    /// Files in the directory.
    public var totalFiles: Int64
    /// restic's estimate of the seconds left, when it has one.
    public var secondsRemaining: Int64?

    /// A progress report.
    public init(bytesDone: Int64, totalBytes: Int64, filesDone: Int64, totalFiles: Int64, secondsRemaining: Int64? = nil) {
        self.bytesDone = bytesDone
        self.totalBytes = totalBytes
        self.filesDone = filesDone
        self.totalFiles = totalFiles
        self.secondsRemaining = secondsRemaining
    }

    init(_ status: ResticStatus) {
        self.init(bytesDone: status.bytesDone ?? 0, totalBytes: status.totalBytes ?? 0, filesDone: status.filesDone ?? 0,
                  totalFiles: status.totalFiles ?? 0, secondsRemaining: status.secondsRemaining)
    }
}

/// What a finished backup made.
public struct BackupSummary: Sendable, Equatable {
    /// The snapshot's short id.
    public internal(set) var snapshot: String
    /// Files new since the last snapshot, changed, and unchanged.
    public let filesNew: Int64, filesChanged: Int64, filesUnmodified: Int64
    /// Bytes added to the repository.
    public let addedBytes: Int64
    /// Bytes in the directory.
    public let totalBytes: Int64
    /// Seconds the backup took, every pass included.
    public var seconds: Double
    /// Whether a write during the first pass made a second, with writes held, necessary.
    public var secondPass = false

    init(_ summary: ResticSummary) {
        snapshot = summary.snapshotID
        filesNew = summary.filesNew
        filesChanged = summary.filesChanged
        filesUnmodified = summary.filesUnmodified
        addedBytes = summary.dataAdded
        totalBytes = summary.totalBytesProcessed
        seconds = summary.totalDuration
    }
}

/// A snapshot in the repository, as `backup list` shows it.
public struct BackupSnapshot: Decodable, Sendable, Equatable {
    /// The full id.
    public let id: String
    /// The first eight hex digits.
    public let shortID: String
    /// When it was taken (RFC 3339, as restic writes it).
    public let time: String
    /// The machine it was taken on.
    public let hostname: String
    /// The directories it holds.
    public let paths: [String]

    enum CodingKeys: String, CodingKey {
        case id, time, hostname, paths
        case shortID = "short_id"
    }
}
