import Foundation

/// Reads a photo's position from the EXIF GPS fields as libvips renders them.
///
/// libvips gives each field as text: its values, then in parentheses libexif's reading
/// of them and the field's type:
///
///     exif-ifd3-GPSLatitude     "48/1 51/1 2938/100 (48, 51, 29.38, Rational, 3 components, 24 bytes)"
///     exif-ifd3-GPSLatitudeRef  "N (N, ASCII, 2 components, 2 bytes)"
///
/// Only the part before the parenthesis is read: whole rationals, exactly as stored.
package enum GPS {
    /// The position in decimal degrees (north and east positive), or nil unless the four
    /// fields make one: each present and readable, the references N/S and E/W, no zero
    /// denominator, minutes and seconds under 60, the latitude within ±90 and the
    /// longitude within ±180. Exactly 0, 0 is nil too: cameras without a fix write zeros,
    /// and no one photographs that spot of the Gulf of Guinea.
    package static func coordinates(
        latitude: String, latitudeRef: String, longitude: String, longitudeRef: String
    ) -> (latitude: Double, longitude: Double)? {
        guard let northSouth = sign(latitudeRef, positive: "N", negative: "S"),
              let eastWest = sign(longitudeRef, positive: "E", negative: "W"),
              let lat = degrees(latitude), lat <= 90,
              let lon = degrees(longitude), lon <= 180,
              lat != 0 || lon != 0
        else { return nil }
        return (northSouth * lat, eastWest * lon)
    }

    /// A position already in signed decimal degrees (exiftool's `-n` reading of a RAW),
    /// under the same rules as ``coordinates(latitude:latitudeRef:longitude:longitudeRef:)``:
    /// nil out of range, not finite, or exactly 0, 0.
    package static func coordinates(latitude: Double?, longitude: Double?) -> (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude, latitude.isFinite, longitude.isFinite,
              abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0
        else { return nil }
        return (latitude, longitude)
    }

    /// Degrees from one to three rationals: degrees, minutes, seconds ("48/1 51/1
    /// 2938/100"); writers that keep a fraction in the degrees or minutes write fewer.
    /// Nil for anything else, a zero denominator or a negative value included.
    package static func degrees(_ text: String) -> Double? {
        let parts = value(text).split(separator: " ")
        guard (1...3).contains(parts.count) else { return nil }
        var values: [Double] = []
        for part in parts {
            let fraction = part.split(separator: "/", omittingEmptySubsequences: false)
            guard fraction.count == 2, let numerator = UInt32(fraction[0]), let denominator = UInt32(fraction[1]),
                  denominator != 0
            else { return nil }
            values.append(Double(numerator) / Double(denominator))
        }
        guard values.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        return zip(values, [1.0, 60, 3600]).reduce(0) { $0 + $1.0 / $1.1 }
    }

    /// +1 or -1 for a reference field ("N (N, ASCII, ...)"); nil for anything else.
    static func sign(_ text: String, positive: String, negative: String) -> Double? {
        switch value(text).uppercased() {
        case positive: 1
        case negative: -1
        default: nil
        }
    }

    /// The text before " (", where libvips starts its description of the field.
    static func value(_ text: String) -> Substring {
        let end = text.range(of: " (")?.lowerBound ?? text.endIndex
        return text[..<end].drop { $0 == " " }
    }
}
