import ObscuraPlaces
import Testing

@Suite struct PlaceTests {
    func place(_ town: String, _ region: String?, _ country: String) -> Place {
        Place(town: town, region: region, country: country, countryCode: "ZZ", latitude: 0, longitude: 0, distance: 0)
    }

    @Test func labelLeavesOutEmptyAndRepeatedParts() {
        #expect(place("Lyon", "Auvergne-Rhône-Alpes", "France").label == "Lyon, Auvergne-Rhône-Alpes, France")
        #expect(place("Tokyo", "Tokyo", "Japan").label == "Tokyo, Japan")
        #expect(place("McMurdo Station", nil, "Antarctica").label == "McMurdo Station, Antarctica")
        #expect(place("Monaco", "", "Monaco").label == "Monaco")
        #expect(place("Luxembourg", "Luxembourg", "Luxembourg").label == "Luxembourg")
        // Only a part equal to the one just before it goes: this is not a repeat.
        #expect(place("Georgia", "Tbilisi", "Georgia").label == "Georgia, Tbilisi, Georgia")
    }

    @Test func searchTextIsFoldedAndComplete() {
        let paris = place("Paris", "Île-de-France", "France")
        #expect(paris.searchText == "paris, ile-de-france, france")
        #expect(place("Tokyo", "Tokyo", "Japan").searchText == "tokyo, tokyo, japan")
        #expect(place("McMurdo Station", nil, "Antarctica").searchText == "mcmurdo station, antarctica")
        for query in ["Île", "ILE", "île-de", "ÎLE-DE-FRANCE", "paris"] {
            #expect(paris.searchText.contains(Place.searchKey(query)), "\(query)")
        }
        #expect(Place.searchKey("Curaçao São Tomé Zürich Ærøskøbing") == "curacao sao tome zurich ærøskøbing",
                "combining marks go; letters of their own (æ, ø) stay")
    }
}
