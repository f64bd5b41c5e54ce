import Foundation

/// The members of `clientDataJSON` the checks read (docs/FORMAT.md §9.9). Decoded with
/// `JSONDecoder`, which refuses a number where a boolean is expected, so that
/// `"crossOrigin": 0` is not taken for false. Other members are ignored, as WebAuthn
/// allows the client to add them.
struct ClientData: Decodable {
    /// The largest `clientDataJSON` accepted.
    static let maximumSize = 2_048

    let type: String
    let challenge: String
    let origin: String
    let crossOrigin: Bool?
    let topOrigin: String?

    /// Nil unless `json` is UTF-8 beginning with `{` (no byte-order mark, no UTF-16 or
    /// UTF-32, which JSONDecoder would otherwise detect and accept) and one JSON object
    /// with string `type`, `challenge` and `origin`. A member named twice is read at its
    /// first occurrence; `null` counts as absent (docs/FORMAT.md §9.9, V4).
    static func parse(_ json: [UInt8]) -> ClientData? {
        guard json.count <= maximumSize, json.first == UInt8(ascii: "{"),
              String(validating: json, as: UTF8.self) != nil else { return nil }
        return try? JSONDecoder().decode(ClientData.self, from: Data(json))
    }
}
