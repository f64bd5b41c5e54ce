// obscura-fuzz: libFuzzer targets for every parser of untrusted bytes (scripts/fuzz).
//
//     OBSCURA_FUZZ_TARGET=slot .build/debug/obscura-fuzz CORPUS_DIR -max_total_time=60
//
// One binary holds every target, chosen by OBSCURA_FUZZ_TARGET, so that the instrumented
// build links once rather than once per target (linking is most of a rebuild here).
//
// SwiftPM links an executable with `main` defined as `<module>_main` (so that tests can
// import executables), which keeps libFuzzer's own `main` out of the link. So this file
// defines `obscura_fuzz_main` and hands over to libFuzzer's driver through
// LLVMFuzzerRunDriver, its documented entry for programs with their own main.
import Foundation

/// A fuzz target: a name for OBSCURA_FUZZ_TARGET, optional one-time set-up, seeds it
/// makes itself (where no committed file fits), and the function libFuzzer calls with
/// each input. A target must never crash or trap: every input is untrusted, so a
/// malformed one has to come back as a thrown error.
struct FuzzTarget: Sendable {
    let name: String
    let setUp: @Sendable () throws -> Void
    let seeds: @Sendable () throws -> [[UInt8]]
    let run: @Sendable ([UInt8]) -> Void

    init(
        _ name: String, setUp: @escaping @Sendable () throws -> Void = {},
        seeds: @escaping @Sendable () throws -> [[UInt8]] = { [] }, run: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.name = name
        self.setUp = setUp
        self.seeds = seeds
        self.run = run
    }
}

/// Every target, by name.
let fuzzTargets: [FuzzTarget] = [
    slotTarget, catalogTarget, chunkedTarget, blobTarget, exportHeaderTarget, manifestTarget, imageProbeTarget,
    pagesTarget, pagesPlainTarget, vfsTarget, passkeyAssertionTarget, passkeyEnrolTarget, watchStructureTarget,
    indexerFramesTarget,
]

nonisolated(unsafe) var selectedTarget: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let name = ProcessInfo.processInfo.environment["OBSCURA_FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets.first(where: { $0.name == name }) else {
        let names = fuzzTargets.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("obscura-fuzz: set OBSCURA_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    do {
        try target.setUp()
        // libFuzzer reads the corpus after this returns, so seeds written now are read.
        if let folder = ProcessInfo.processInfo.environment["OBSCURA_FUZZ_SEEDS"] {
            for (n, seed) in try target.seeds().enumerated() {
                try Data(seed).write(to: URL(fileURLWithPath: folder + "/made-\(name)-\(n)"))
            }
        }
    } catch {
        FileHandle.standardError.write(Data("obscura-fuzz: set-up of \(name) failed: \(error)\n".utf8))
        exit(2)
    }
    selectedTarget = target
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_cdecl("obscura_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selectedTarget?.run(bytes)
    return 0
}
