import Foundation

/// HTTP's date format (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, read and written
/// without a `DateFormatter` (whose result depends on the locale, and which costs a formatter).
/// The obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's `asctime` form
/// (`Sun Nov  6 08:49:37 1994`) are read too, as recipients must.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// The date `text` names, or nil when it is not an HTTP date in one of the three forms.
    package static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?
        let month: Int?
        var year: Int?
        let time: String
        switch words.count {
        case 6 where words[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, time) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), words[4])
        case 4 where words[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), Int(parts[2]), words[2])
            if let short = year, parts[2].count == 2 { year = short < 70 ? 2000 + short : 1900 + short }
        case 5:  // Sun Nov  6 08:49:37 1994
            (day, month, year, time) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int64($0) }
        guard let day, let month, let year, clock.count == 3, (0...9999).contains(year),
            (1...CivilCalendar.daysIn(month: Int64(month), year: Int64(year))).contains(Int64(day)),
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day))
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]))
    }

    /// `date` as an IMF-fixdate, the form HTTP senders use: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// (whole seconds, rounded down).
    package static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = (Double(seconds) / 86_400).rounded(.down)
        let inDay = seconds - Int64(days) * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: Int64(days))
        let weekday = weekdays[Int(((Int64(days) % 7) + 7 + 4) % 7)]  // 1 January 1970 was a Thursday
        let pad = CivilCalendar.pad
        return "\(weekday), \(pad(day, 2)) \(months[Int(month) - 1]) \(pad(year, 4)) "
            + "\(pad(inDay / 3_600, 2)):\(pad(inDay / 60 % 60, 2)):\(pad(inDay % 60, 2)) GMT"
    }

    private static func monthNumber(_ word: String) -> Int? {
        months.firstIndex { $0.caseInsensitiveCompare(word) == .orderedSame }.map { $0 + 1 }
    }
}
