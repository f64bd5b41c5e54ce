import CObscuraSystem
import Foundation

/// One indexer role process, seen from the parent (docs/SEARCH.md §S3.4): started
/// hardened, checked at `hello`, given one request at a time with a deadline, and killed
/// (SIGKILL) at the first reply that breaks §S3.4.3's rules, at a deadline, or at lock.
/// After that every call throws ``IndexerError/stopped``; the caller starts another.
public final class IndexerProcess: @unchecked Sendable {
    /// The roles of §S3.4.
    public enum Role: UInt8, Sendable {
        /// OCR and the image encoder, in `SCHED_IDLE`.
        case index = 1
        /// The text encoder.
        case query = 2
        /// `obscura models fetch`.
        case fetch = 3

        var name: String {
            switch self {
            case .index: "index"
            case .query: "query"
            case .fetch: "fetch"
            }
        }
    }

    /// §S3.4.1's environment, exactly: nothing of the user's.
    public static let environment = [
        "OMP_THREAD_LIMIT=1", "OMP_WAIT_POLICY=PASSIVE", "MALLOC_ARENA_MAX=2", "LC_ALL=C",
    ]
    /// How long a started worker has to say `hello`.
    public static let helloTimeout: Duration = .seconds(10)
    /// An item's deadline, from `item` sent to `result` read (§S3.4.1).
    public static let itemTimeout: Duration = .seconds(60)
    /// Deadline of the small requests (`diag`, `load`).
    public static let requestTimeout: Duration = .seconds(30)

    /// Held for a whole request–reply; ``stop()`` does not wait for it to kill.
    private let lock = NSLock()
    /// Guards only whether the pid was reaped, so that a kill never reaches a reused pid.
    private let pidLock = NSLock()
    private var socket: Int32
    private let channel: FrameChannel
    /// The worker's pid; nil when a test speaks as the worker on the other end.
    public let pid: pid_t?
    private var nextId: UInt32 = 1
    private var isStopped = false
    private var reaped = false
    /// The Landlock ABI the worker entered (0: the kernel has none), from its `diag`.
    public private(set) var landlockABI = 0

    /// The process of `role`, spawned from the host thread with `readPaths` added to what
    /// Landlock lets it read, and checked at its `hello`.
    ///
    /// - Throws: ``IndexerError``: the executable missing or unsafe, the spawn failing, or
    ///   no valid `hello` in time (the worker is then killed).
    public static func start(role: Role, executable: String? = nil, readPaths: [String] = []) throws -> IndexerProcess {
        try start(role: role, executable: executable, readPaths: readPaths, parent: getpid())
    }

    /// ``start(role:executable:readPaths:)`` naming `parent` as the parent (tests: a worker
    /// told of a parent other than its own exits before `hello`).
    package static func start(role: Role, executable: String?, readPaths: [String], parent: pid_t) throws -> IndexerProcess {
        let (path, identity) = try executable.map { ($0, try IndexerExecutable.check($0)) } ?? IndexerExecutable.located()
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw IndexerError.spawnFailed(errno)
        }
        var arguments = [path, "--role", role.name, "--parent", String(parent)]
        for folder in readPaths { arguments += ["--read", folder] }
        let spawned = IndexerHost.shared.spawn(path: path, arguments: arguments, environment: environment, socket: pair[1])
        close(pair[1])
        switch spawned {
        case let .failure(error):
            close(pair[0])
            throw error
        case let .success(pid):
            let process = IndexerProcess(socket: pair[0], pid: pid)
            try process.expectHello()
            try process.checkHardening(identity: identity)
            return process
        }
    }

    /// A process over `socket`, whose other end is `pid` (nil: a test speaking as the worker).
    package init(socket: Int32, pid: pid_t?) {
        self.socket = socket
        self.pid = pid
        channel = FrameChannel(descriptor: socket, isParent: true)
    }

    deinit {
        stopLocked()
    }

    /// Reads the worker's `hello` and checks it names this build (§S3.4.3).
    package func expectHello() throws {
        try exchange(deadline: .now + Self.helloTimeout) {
            let (type, payload) = try channel.receive(deadline: $0)
            guard type == .hello else { throw IndexerError.violation("\(type) before hello") }
            let hello = try Hello.decode(payload)
            guard hello == .current else {
                throw IndexerError.violation("a worker of protocol \(hello.version), release \(hello.release)")
            }
        }
    }

    /// Checks, before anything is sent, that the worker runs the file that was checked and
    /// entered its sandbox (review I-R6, I-R10, I-R13): seccomp's filter, no-new-privs,
    /// not dumpable, no tracer, and Landlock wherever this kernel has it.
    ///
    /// - Throws: ``IndexerError/violation(_:)``, the worker killed.
    package func checkHardening(identity: IndexerExecutable.Identity?) throws {
        let state = try diagnostics()
        var wrong: [String] = []
        if let identity, let pid, IndexerExecutable.running(pid) != identity { wrong.append("another executable") }
        for (name, value) in [("seccomp", "2"), ("nonewprivs", "1"), ("dumpable", "0"), ("tracer", "0")]
        where state[name] != value {
            wrong.append("\(name)=\(state[name] ?? "none")")
        }
        let entered = Int(state["landlock"] ?? "") ?? 0
        if obscura_system_landlock_abi() > 0, entered < 1 { wrong.append("no Landlock") }
        guard wrong.isEmpty else {
            stop()
            throw IndexerError.violation("a worker not hardened: \(wrong.joined(separator: ", "))")
        }
        landlockABI = entered
    }

    /// The worker's hardening state (§S3.4.3's `diag`), as name → value.
    public func diagnostics() throws -> [String: String] {
        try exchange(deadline: .now + Self.requestTimeout) {
            try channel.send(.diag, [UInt8](), deadline: $0)
            let text = try String(validating: expect(.diag, deadline: $0), as: UTF8.self) ?? ""
            var values: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return values
        }
    }

    /// Loads the OCR engine for `languages`; returns the engines' versions.
    ///
    /// - Throws: ``IndexerError/loadFailed(_:)`` when the worker could not load them (it
    ///   goes on running, and may be asked for others), or the errors of a broken exchange.
    public func load(languages: String, minimumWordConfidence: UInt8 = 50) throws -> String {
        let loaded = try exchange(deadline: .now + Self.requestTimeout) {
            let request = LoadRequest(languages: languages, minimumWordConfidence: minimumWordConfidence)
            try channel.send(.load, request.encoded(), deadline: $0)
            let loaded = try Loaded.decode(expect(.loaded, deadline: $0))
            guard LoadStatus(rawValue: loaded.status) != nil else {
                throw IndexerError.violation("a loaded with status \(loaded.status)")
            }
            return loaded
        }
        guard loaded.status == LoadStatus.ready.rawValue else { throw IndexerError.loadFailed(loaded.status) }
        return loaded.versions
    }

    /// Sends one item's `bytes` (of media type `mime`) and returns its checked result.
    ///
    /// - Throws: ``IndexerError/timedOut`` past `timeout` and ``IndexerError/violation(_:)``
    ///   for a reply that breaks the rules (the worker is killed in both cases), or
    ///   ``IndexerError/ended(status:signal:)`` when it died on its own.
    public func read(_ bytes: UnsafeRawBufferPointer, mime: String, wanted: Wanted = .text,
                     timeout: Duration = itemTimeout) throws -> CheckedResult {
        guard bytes.count <= IndexerProtocol.itemBytesLimit else {
            return CheckedResult(status: .notIndexable, text: "", confidence: 0, vector: nil, vectorFailed: false)
        }
        return try exchange(deadline: .now + timeout) { deadline in
            let id = nextId
            nextId &+= 1
            let header = ItemHeader(id: id, wanted: wanted, mime: mime).encoded()
            try header.withUnsafeBytes { try channel.send(.item, [$0, bytes], deadline: deadline) }
            let result = try ItemResult.decode(expect(.result, deadline: deadline))
            return try CheckedResult.check(result, id: id, wanted: wanted)
        }
    }

    /// Asks a debug build's worker to make one governed call (§S3.4.2's tests); returns
    /// its errno, 0 when it succeeded.
    package func probe(_ probe: UInt8, path: String = "", timeout: Duration = requestTimeout) throws -> Int32 {
        try exchange(deadline: .now + timeout) {
            try channel.send(.probe, ProbeRequest(probe: probe, path: path).encoded(), deadline: $0)
            return try ProbeReply.decode(expect(.probed, deadline: $0)).code
        }
    }

    /// Kills the worker (SIGKILL) at once, even while a request is in flight (lock must
    /// not wait behind an item, §S3.4: review I-R5), then reaps it; later calls throw
    /// ``IndexerError/stopped``. The request in flight ends with the worker's death.
    public func stop() {
        pidLock.lock()
        if !reaped, let pid { kill(pid, SIGKILL) }
        pidLock.unlock()
        lock.lock()
        defer { lock.unlock() }
        stopLocked()
    }

    /// Whether the worker was stopped, or found ended.
    public var stopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isStopped
    }

    private func expect(_ type: FrameType, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        let (got, payload) = try channel.receive(deadline: deadline)
        guard got == type else { throw IndexerError.violation("\(got) where \(type) was due") }
        return payload
    }

    /// Runs one request–reply under the lock. Any failure stops the worker: a timeout and
    /// a violation by SIGKILL; an end of stream is the worker's own end, reported with
    /// its status.
    private func exchange<T>(deadline: ContinuousClock.Instant, _ body: (ContinuousClock.Instant) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped else { throw IndexerError.stopped }
        do {
            return try body(deadline)
        } catch IndexerError.stopped {
            throw stopLocked(ended: true)
        } catch {
            stopLocked()
            throw error
        }
    }

    /// Kills and reaps the worker. With `ended`, the worker closed the stream itself; its
    /// way of ending is waited for briefly and returned as the error to report.
    @discardableResult
    private func stopLocked(ended: Bool = false) -> IndexerError {
        guard !isStopped else { return .stopped }
        isStopped = true
        close(socket)
        socket = -1
        guard let pid else { return .stopped }
        var status: Int32 = 0
        defer {
            pidLock.lock()
            reaped = true
            pidLock.unlock()
        }
        if ended {
            // A worker that closed its end is exiting or killed; give it a moment to be reapable.
            for _ in 0..<200 {
                if waitpid(pid, &status, WNOHANG) == pid { return Self.ending(status) }
                usleep(5_000)
            }
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return ended ? Self.ending(status) : .stopped
    }

    private static func ending(_ status: Int32) -> IndexerError {
        let signal = status & 0x7F
        return signal != 0 ? .ended(status: 0, signal: signal) : .ended(status: (status >> 8) & 0xFF, signal: 0)
    }
}
