import Foundation

/// Pictures of known text rendered at test time by libvips (`vips text`, DejaVu from
/// fonts-dejavu-core, installed by scripts/setup): the OCR chain's and the indexer's input.
public enum TextPages {
    /// Runs `vips` with `arguments` in `directory`.
    static func vips(_ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Renders `text` dark on light (or light on dark), at `points` DejaVu points at 96
    /// dpi, with a margin, turned by `angle` degrees (small angles as a skew, 90 and 180
    /// as a page turned), as a file of `format` ("pgm", "png", "jpg"); returns its path.
    public static func render(_ text: String, name: String, in directory: String, font: String = "DejaVu Sans", points: Int = 20,
                              dark: Bool = false, angle: Int = 0, format: String = "pgm") throws -> String {
        try vips(["text", "\(name)-t.v", text, "--font", "\(font) \(points)", "--width", "1200", "--dpi", "96"], in: directory)
        var last = "\(name)-t.v"
        if !dark {
            try vips(["invert", last, "\(name)-i.v"], in: directory)
            last = "\(name)-i.v"
        }
        try vips(["embed", last, "\(name)-e.v", "60", "60", "1340", "480", "--extend", "background",
                  "--background", dark ? "0" : "255"], in: directory)
        last = "\(name)-e.v"
        switch angle {
        case 0: break
        case 90, 180, 270:
            try vips(["rot", last, "\(name)-r.v", "d\(angle)"], in: directory)
            last = "\(name)-r.v"
        default:
            try vips(["rotate", last, "\(name)-r.v", "\(angle)", "--background", dark ? "0" : "255"], in: directory)
            last = "\(name)-r.v"
        }
        try vips(["copy", last, "\(name).\(format)"], in: directory)
        return directory + "/\(name).\(format)"
    }
}
