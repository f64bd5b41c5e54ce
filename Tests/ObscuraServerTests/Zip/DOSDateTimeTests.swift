import Foundation
import Testing
@testable import ObscuraServer

/// MS-DOS date and time (APPNOTE 4.4.6): wall-clock fields in bits, clamped to 1980-2107.
@Suite struct DOSDateTimeTests {
    @Test func fieldsAreTheWallClockOfTheZone() throws {
        let moment = ZipStreamTests.moment  // 2023-07-14 18:32:05 UTC
        let utc = DOSDateTime(moment, timeZone: ZipStreamTests.utc)
        #expect(utc.time == UInt16(18 << 11 | 32 << 5 | 5 / 2))
        #expect(utc.date == UInt16((2023 - 1980) << 9 | 7 << 5 | 14))
        // Paris is two hours ahead in July.
        let paris = DOSDateTime(moment, timeZone: try #require(TimeZone(identifier: "Europe/Paris")))
        #expect(paris.time == UInt16(20 << 11 | 32 << 5 | 2) && paris.date == utc.date)
    }

    @Test func datesOutsideTheFormatAreClamped() {
        let utc = ZipStreamTests.utc
        let early = DOSDateTime(Date(timeIntervalSince1970: 0), timeZone: utc)
        #expect(early == DOSDateTime(Date(timeIntervalSince1970: 315_532_800), timeZone: utc))  // 1980-01-01
        #expect(early.time == 0 && early.date == UInt16(1 << 5 | 1))
        let late = DOSDateTime(Date(timeIntervalSince1970: 5_000_000_000), timeZone: utc)  // 2128
        #expect(late.time == UInt16(23 << 11 | 59 << 5 | 29))
        #expect(late.date == UInt16(127 << 9 | 12 << 5 | 31))
    }
}
