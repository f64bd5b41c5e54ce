// The image entry point of an import (docs/SECURITY.md, Media): libvips reads the
// header of any file that sniffs as a photo, then thumbnails it.
import ObscuraImaging

/// Probes the bytes as an import does; small images that pass are thumbnailed too, so
/// the decoders run, not just the header readers. libvips itself is not instrumented
/// (Debian's build): coverage guidance comes from the Swift side only, but a crash or a
/// memory error inside libvips still stops the fuzzer.
let imageProbeTarget = FuzzTarget("image") { bytes in
    bytes.withUnsafeBytes { raw -> Void in
        guard let info = try? Imaging.probe(raw, pixelLimit: 4_000_000, readingContentIdentifier: true) else { return }
        guard info.width * info.height <= 250_000 else { return }
        _ = try? Imaging.thumbnail(raw, maxSide: 64, pixelLimit: 250_000)
    }
}
