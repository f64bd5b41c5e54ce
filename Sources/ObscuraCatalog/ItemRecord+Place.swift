import ObscuraPlaces

extension ItemRecord {
    /// Records where the item was captured, and names the place from the offline
    /// gazetteer (issue 17): the town nearest the position, with its region and country.
    /// No network is asked, ever. Without a position, or with no town within the
    /// gazetteer's search radius (open sea), the place stays nil.
    package mutating func locate(latitude: Double?, longitude: Double?) {
        guard let latitude, let longitude else { return }
        self.latitude = latitude
        self.longitude = longitude
        place = Gazetteer.shared?.nearest(latitude: latitude, longitude: longitude)?.label
    }
}
