import Foundation

/// A moment in MS-DOS date and time format, ZIP's "last mod file time/date"
/// (APPNOTE 4.4.6): local time with no zone, two-second resolution, years 1980-2107.
struct DOSDateTime: Equatable {
    /// Bits 15-11 hour, 10-5 minute, 4-0 second / 2.
    let time: UInt16
    /// Bits 15-9 years since 1980, 8-5 month, 4-0 day.
    let date: UInt16

    /// The first and last moments the format can hold.
    static let earliestYear = 1980
    static let latestYear = 2107

    /// `moment` in `timeZone`'s wall-clock time, clamped to what the format can hold:
    /// a date before 1980 is written as 1980-01-01 00:00:00, one after 2107 as
    /// 2107-12-31 23:59:58, rather than wrapping into a wrong year.
    init(_ moment: Date, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: moment)
        let year = c.year ?? Self.earliestYear
        if year < Self.earliestYear {
            self.init(year: Self.earliestYear, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        } else if year > Self.latestYear {
            self.init(year: Self.latestYear, month: 12, day: 31, hour: 23, minute: 59, second: 58)
        } else {
            self.init(year: year, month: c.month ?? 1, day: c.day ?? 1, hour: c.hour ?? 0, minute: c.minute ?? 0, second: c.second ?? 0)
        }
    }

    private init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        time = UInt16(hour << 11 | minute << 5 | second / 2)
        date = UInt16((year - Self.earliestYear) << 9 | month << 5 | day)
    }
}
