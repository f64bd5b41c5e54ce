// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Obscura",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ObscuraKit", targets: ["ObscuraKit"]),
        .executable(name: "obscura", targets: ["obscura"]),
        .executable(name: "obscura-indexer", targets: ["obscura-indexer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
    ],
    targets: [
        // Plain C wrappers for the system calls Swift cannot call (variadic or unwrapped).
        .target(name: "CObscuraSystem"),
        // The reference Argon2 library from the system (pkg-config), for Argon2id.
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]),
        // Crypto primitives; knows nothing of vaults.
        .target(
            name: "ObscuraCrypto",
            dependencies: [
                "CObscuraSystem",
                "CArgon2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // libvips from the system (pkg-config), used only by the C shim below.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // Plain C wrappers for libvips's variadic calls.
        .target(name: "CObscuraVips", dependencies: ["CVips"]),
        // libsecret from the system (pkg-config), used only by the C shim below; Linux only
        // (Apple systems keep keys in the Keychain through the Security framework).
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        // Plain C wrappers for the Secret Service calls the keyring needs (bounded, no prompts).
        .target(name: "CObscuraSecret", dependencies: [.target(name: "CSecret", condition: .when(platforms: [.linux]))]),
        // Offline reverse geocoding: the nearest town to a photo's GPS position, from a
        // GeoNames table shipped as a resource (scripts/make-gazetteer writes it).
        .target(name: "ObscuraPlaces", resources: [.copy("Resources/gazetteer.bin")]),
        // libtesseract and Leptonica from the system (pkg-config), used only by the C shim
        // below, which runs the OCR chain of docs/SEARCH.md §S2.3; the Swift engine over it
        // belongs to the indexer process (issue 38), never to one that holds keys.
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"]), .brew(["tesseract"])]),
        .systemLibrary(name: "CLeptonica", pkgConfig: "lept", providers: [.apt(["libleptonica-dev"]), .brew(["leptonica"])]),
        .target(name: "CObscuraOCR", dependencies: ["CTesseract", "CLeptonica"]),
        .target(name: "ObscuraOCR", dependencies: ["CObscuraOCR"]),
        // libseccomp from the system (pkg-config), for the indexer's filter; Linux only.
        .systemLibrary(name: "CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
        // The indexer's start sequence, seccomp filter and Landlock (docs/SEARCH.md §S3.4.1,
        // §S3.4.2), in C; linked by obscura-indexer alone.
        .target(name: "CObscuraSandbox", dependencies: [.target(name: "CSeccomp", condition: .when(platforms: [.linux]))]),
        // The indexer's protocol and the parent's side of it: spawning a role hardened,
        // checking what it sends (§S3.4.3). Knows no vault, OCR engine or model.
        .target(name: "ObscuraIndexing", dependencies: ["CObscuraSystem", "ObscuraCrypto"]),
        // The worker process (docs/SEARCH.md §S3.4): decodes a picture and reads its text
        // under seccomp and Landlock, so no process that holds keys maps libtesseract.
        .executableTarget(name: "obscura-indexer", dependencies: ["CObscuraSandbox", "ObscuraIndexing", "ObscuraOCR", "ObscuraImaging"]),
        // Imaging: probes and thumbnails (libvips), video posters (ffmpeg).
        .target(name: "ObscuraImaging", dependencies: ["CObscuraVips", "ObscuraCrypto"]),
        // SQLite's VFS for the paged catalog, in C: it hands every page read and write to
        // the Swift page store below and refuses every other file SQLite would open.
        .target(name: "CObscuraPageVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The paged catalog (docs/FORMAT.md §9): an SQLite database whose pages are sealed
        // one by one under the vault's key, with a tag tree, over a slot's logical blocks.
        .target(
            name: "ObscuraPages",
            dependencies: [
                "CObscuraPageVFS", "ObscuraCrypto", "ObscuraStore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The bottom of the vault: the slot container and slot files, and the storage I/O
        // under them (docs/ARCHITECTURE.md). Knows no vault, catalog or media.
        .target(name: "ObscuraStore", dependencies: ["ObscuraCrypto"]),
        // The vault's catalog: every SQL statement and, with ObscuraPages, the only GRDB
        // user (docs/ARCHITECTURE.md). Rows in, rows out; knows no vault, keys or media.
        .target(
            name: "ObscuraCatalog",
            dependencies: [
                "ObscuraCrypto", "ObscuraStore", "ObscuraPages", "ObscuraPlaces",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Keys and the secrets that guard them: key files and key text, the OS keyrings,
        // the device secret of Hidden Vaults, password strength (docs/ARCHITECTURE.md).
        // Knows no vault, catalog or media.
        .target(
            name: "ObscuraKeys",
            dependencies: [
                "ObscuraCrypto",
                "ObscuraStore",
                .target(name: "CObscuraSecret", condition: .when(platforms: [.linux])),
            ]
        ),
        // The vault engine: the directory, Hidden Vault slots, media pool, backups, services.
        .target(
            name: "ObscuraKit",
            dependencies: [
                "ObscuraCatalog",
                "ObscuraKeys",
                "ObscuraStore",
                "CObscuraSystem",
                .target(name: "CObscuraSecret", condition: .when(platforms: [.linux])),
                "ObscuraCrypto",
                "ObscuraImaging",
                "ObscuraPages",
                "ObscuraPlaces",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // zlib from the system, for its CRC-32 only (the ZIP download stores, never compresses).
        .systemLibrary(name: "CZlib"),
        // The web gallery: HTTP API, sessions and the single-page app's files.
        .target(
            name: "ObscuraServer",
            dependencies: [
                "ObscuraKit", "ObscuraKeys", "ObscuraCatalog",
                "ObscuraStore",
                "ObscuraCrypto",
                "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/web")]
        ),
        // Command implementations, kept in a library so tests can drive them.
        .target(
            name: "ObscuraCLI",
            dependencies: [
                "ObscuraKit",
                "ObscuraKeys",
                "ObscuraCatalog",
                "ObscuraServer",
                "ObscuraStore",
                "ObscuraCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "obscura", dependencies: ["ObscuraCLI"]),
        .executableTarget(
            name: "obscura-bench",
            dependencies: ["ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraCrypto", "ObscuraPages", .product(name: "GRDB", package: "GRDB.swift")]),
        // The test vectors of docs/FORMAT.md §5: tool code, kept out of the library.
        // `obscura-vectors` writes them; ObscuraKitTests regenerate and compare them.
        .target(
            name: "ObscuraVectors",
            dependencies: [
                "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraCrypto", "ObscuraPages",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "obscura-vectors", dependencies: ["ObscuraVectors", "ObscuraKit", "ObscuraCrypto"]),
        .testTarget(name: "ObscuraCryptoTests", dependencies: ["ObscuraCrypto", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "ObscuraPlacesTests", dependencies: ["ObscuraPlaces"]),
        .testTarget(name: "ObscuraPagesTests", dependencies: ["ObscuraPages", "ObscuraCrypto", .product(name: "GRDB", package: "GRDB.swift")]),
        // Test media made at run time, shared by the test targets.
        .target(
            name: "ObscuraTestSupport", dependencies: ["ObscuraImaging", "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraCrypto"],
            path: "Tests/ObscuraTestSupport"),
        .testTarget(name: "ObscuraImagingTests", dependencies: ["ObscuraImaging", "ObscuraTestSupport"]),
        .testTarget(name: "ObscuraOCRTests", dependencies: ["ObscuraOCR", "ObscuraTestSupport"]),
        .testTarget(name: "ObscuraIndexingTests", dependencies: ["ObscuraIndexing", "ObscuraTestSupport", "CObscuraSandbox"]),
        .testTarget(
            name: "ObscuraCatalogTests",
            dependencies: ["ObscuraCatalog", "ObscuraCrypto", "ObscuraPages", .product(name: "GRDB", package: "GRDB.swift")]),
        // The container's own tests, and the fixtures they share with the vault's tests.
        .target(name: "ObscuraStoreTestSupport", dependencies: ["ObscuraStore", "ObscuraCrypto"], path: "Tests/ObscuraStoreTestSupport"),
        .testTarget(name: "ObscuraStoreTests", dependencies: ["ObscuraStore", "ObscuraCrypto", "ObscuraStoreTestSupport", "ObscuraTestSupport"]),
        .testTarget(name: "ObscuraKeysTests", dependencies: ["ObscuraKeys", "ObscuraCrypto", "ObscuraStore", "ObscuraStoreTestSupport", "ObscuraTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "ObscuraKitTests",
            dependencies: [
                "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraStoreTestSupport", "ObscuraVectors",
                "ObscuraTestSupport", "ObscuraCrashSupport",
                // Passkey tests make real P-256 keys for the credentials they enrol.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ObscuraServerTests",
            dependencies: [
                "ObscuraServer", "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraCrypto", "ObscuraTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // The passkey routes' tests sign as an authenticator would.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ObscuraCLITests", dependencies: ["ObscuraCLI", "ObscuraServer", "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraTestSupport"]),
        // Audits a vault directory after an interrupted write; used by the crash tests
        // and by obscura-hardening's kill loop.
        .target(name: "ObscuraCrashSupport", dependencies: ["ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore"], path: "Tests/ObscuraCrashSupport"),
        // Crash-loop worker and concurrency stress driver (scripts/crash-kill, scripts/tsan).
        .executableTarget(
            name: "obscura-hardening", dependencies: ["ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraStore", "ObscuraCrashSupport", "ObscuraTestSupport"]),
    ]
)

// Sanitizer builds (scripts/fuzz, scripts/tsan; docs/HARDENING.md "Fuzzing", "Thread Sanitizer").
// OBSCURA_SANITIZE=fuzzer or =thread instruments this package's own Swift modules only:
// the dependencies keep the flags of an ordinary debug build, so a sanitizer build in
// the ordinary scratch path recompiles a few of our modules instead of every dependency
// (which `swift build --sanitize` would do). The fuzz targets have no main of their own,
// libFuzzer supplies it, so they exist only in the fuzzer build.
let sanitizer = Context.environment["OBSCURA_SANITIZE"]
if sanitizer == "fuzzer" {
    package.targets.append(.executableTarget(
        name: "obscura-fuzz",
        dependencies: [
            "ObscuraKit", "ObscuraKeys", "ObscuraCatalog", "ObscuraPages", "ObscuraStore", "ObscuraImaging", "ObscuraCrypto",
            "ObscuraIndexing", .product(name: "GRDB", package: "GRDB.swift"),
        ]))
}
if let sanitizer, ["fuzzer", "thread"].contains(sanitizer) {
    // libFuzzer's coverage and ASan go together; TSan stands alone.
    let flags = sanitizer == "fuzzer" ? ["-sanitize=fuzzer,address"] : ["-sanitize=thread"]
    let instrumented: Set = [
        "ObscuraCrypto", "ObscuraImaging", "ObscuraPages", "ObscuraStore", "ObscuraKeys", "ObscuraKit", "ObscuraCatalog", "ObscuraCrashSupport",
        "ObscuraIndexing",
        "obscura-hardening", "obscura-fuzz",
    ]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(flags)]
        if target.type == .executable {
            target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(flags)]
        }
    }
}
