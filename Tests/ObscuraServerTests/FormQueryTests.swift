import Testing
@testable import ObscuraServer

/// The upload's query, decoded as the page's URLSearchParams encodes it (issue 16, bug 2;
/// the browser suite's test_odd_file_names_round_trip drives the same through the page).
@Suite struct FormQueryTests {
    @Test func plusIsASpaceAndEscapesAreDecodedOnce() {
        let query = FormQuery("name=Screenshot+2024-01-02+at+10.11.12.png&folder=&x=a%2Bb%3Dc&y=100%25+sure+%2541&z=%F0%9F%8E%89")
        #expect(query["name"] == "Screenshot 2024-01-02 at 10.11.12.png")
        #expect(query["folder"] == "")
        #expect(query["x"] == "a+b=c")
        #expect(query["y"] == "100% sure %41")
        #expect(query["z"] == "🎉")
        #expect(query["absent"] == nil)
    }

    @Test func aMalformedEscapeIsKeptAndTheFirstValueWins() {
        let query = FormQuery("name=50%ZZ+off&name=second&flag")
        #expect(query["name"] == "50%ZZ off")
        #expect(query["flag"] == "")
        #expect(FormQuery(nil)["name"] == nil)
    }
}
