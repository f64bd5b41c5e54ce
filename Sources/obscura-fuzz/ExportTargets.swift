// Targets for `.obscura` exports (docs/FORMAT.md §7): the plaintext header a stranger's
// file starts with, and the payload (manifest, slot, file records) that whoever made the
// export wrote and sealed under a password they handed over with it.
import Foundation
import ObscuraCrypto
@testable import ObscuraKit
import ObscuraKeys

/// The export password of the export vectors (testdata/export, docs/FORMAT.md §5), so
/// that seeds derived from them pass the password check and reach the payload.
let exportVectorPassword = SecureBytes(copying: Array("K3Y9Q-7ZTPM-2WX4N-8BCDR".utf8))

/// A scratch directory for the files the export targets hand to the real readers, which
/// take paths: in memory where the system has /dev/shm (every import fsyncs), and per
/// process, so parallel fuzzing jobs never share it.
let fuzzScratch = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory())
    + "obscura-fuzz-\(getpid())"

/// The whole export file: header checks, the password check (for small iteration counts)
/// and, when it passes, every payload chunk.
let exportHeaderTarget = FuzzTarget("export", setUp: makeScratch) { bytes in
    let path = fuzzScratch + "/input.obscura"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
    guard let file = try? ExportFile(path: path), case .pbkdf2(let rounds) = file.kdf, rounds <= 2000 else { return }
    guard let payload = try? file.open(password: exportVectorPassword) else { return }
    _ = try? payload.read(file.payload!.size) { _ in }
}

/// Where the manifest target imports into: an initialised directory whose slots use one
/// PBKDF2 round, so that an import's decoy sweep costs nothing.
nonisolated(unsafe) var importTarget: VaultDirectory?

func makeScratch() throws {
    try FileManager.default.createDirectory(atPath: fuzzScratch, withIntermediateDirectories: true)
    // libFuzzer ends a bounded run with exit(), so the scratch goes with the process
    // instead of piling up in /dev/shm (memory) run after run. A crash keeps it.
    if !scratchRemovalRegistered {
        scratchRemovalRegistered = true
        atexit { try? FileManager.default.removeItem(atPath: fuzzScratch) }
    }
}

nonisolated(unsafe) var scratchRemovalRegistered = false

func makeImportTarget() throws {
    try makeScratch()
    importTarget = nil
    try? FileManager.default.removeItem(atPath: fuzzScratch + "/vault")
    let secrets = DeviceSecretStore(path: fuzzScratch + "/device-secret")
    let directory = try VaultDirectory(
        path: fuzzScratch + "/vault", deviceSecrets: secrets, outerKey: SecureBytes(randomCount: 32), create: true)
    try directory.initialize(iterations: 1)
    importTarget = directory
}

/// The payload plaintext: it is sealed as a valid export under a known password, then
/// imported, so every byte reaches the manifest decoder, the slot header parser and the
/// record loop exactly as a real import would read them (§7.3-7.5).
let manifestTarget = FuzzTarget("manifest", setUp: makeImportTarget) { bytes in
    let path = fuzzScratch + "/payload.obscura"
    unlink(path)
    do {
        try sealExport(payload: bytes, to: path)
    } catch {
        fatalError("cannot seal the fuzz payload: \(error)")
    }
    let imported: Int
    do {
        imported = try importTarget!.importVault(from: path, password: exportVectorPassword)
    } catch ExportError.wrongPassword {
        fatalError("the fuzz payload was sealed under another password: the target tests nothing")
    } catch {
        return
    }
    _ = imported
    // An accepted payload changed the directory; start the next input from a clean one.
    try! makeImportTarget()
}

/// Writes `payload` as an export file under ``exportVectorPassword`` with one PBKDF2
/// round: the layout `Vault.exportVault` writes, for arbitrary plaintext.
func sealExport(payload: [UInt8], to path: String) throws {
    try payload.withUnsafeBytes { raw in
        try ExportFormat.write(
            to: path, password: exportVectorPassword, kdf: .pbkdf2(iterations: 1), totalSize: UInt64(payload.count),
            source: ChunkedFileWriter.source(bytes: raw), using: SystemRandom())
    }
}
