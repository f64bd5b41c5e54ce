import Foundation

/// The town nearest to a position, with its region and country.
public struct Place: Sendable, Hashable, Codable {
    /// The town's name, as GeoNames spells it in ASCII ("Sao Paulo").
    public var town: String
    /// The first-level region (state, province, French région), or nil where GeoNames
    /// gives none.
    public var region: String?
    /// The country's English name ("France").
    public var country: String
    /// The ISO 3166-1 alpha-2 code ("FR"; GeoNames' "XK" for Kosovo).
    public var countryCode: String
    /// The town's latitude in degrees.
    public var latitude: Double
    /// The town's longitude in degrees.
    public var longitude: Double
    /// Great-circle distance in kilometres from the position looked up to the town.
    public var distance: Double

    /// Makes a place; ``Gazetteer/nearest(latitude:longitude:)`` is the usual source.
    public init(town: String, region: String?, country: String, countryCode: String,
                latitude: Double, longitude: Double, distance: Double) {
        self.town = town
        self.region = region
        self.country = country
        self.countryCode = countryCode
        self.latitude = latitude
        self.longitude = longitude
        self.distance = distance
    }

    /// The display form, "Paris, Île-de-France, France": town, region and country, each
    /// left out when empty or the same as the part before it ("Tokyo, Japan", not
    /// "Tokyo, Tokyo, Japan"; "Monaco", not "Monaco, Monaco").
    public var label: String {
        var parts: [String] = []
        for part in [town, region ?? "", country] where !part.isEmpty && part != parts.last {
            parts.append(part)
        }
        return parts.joined(separator: ", ")
    }

    /// "town, region, country" folded by ``searchKey(_:)`` ("paris, ile-de-france,
    /// france"), to store beside an item and match against a query folded the same
    /// way: a plain substring match (SQLite's LIKE, which folds ASCII case only) then
    /// finds "Île" with "ile", "ÎLE" or "île".
    public var searchText: String {
        Self.searchKey([town, region ?? "", country].filter { !$0.isEmpty }.joined(separator: ", "))
    }

    /// `text` in lower case without accents or other combining marks ("Île" -> "ile"),
    /// for comparing a query with ``searchText``.
    public static func searchKey(_ text: String) -> String {
        let scalars = text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars
            .filter { $0.properties.generalCategory != .nonspacingMark }
        return String(String.UnicodeScalarView(scalars))
    }
}
