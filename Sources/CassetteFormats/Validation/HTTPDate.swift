import Foundation

/// HTTP's date format (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, read and written
/// without a `DateFormatter` (whose result depends on the locale, and which costs a formatter).
/// The obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`), the cookie form of it with a
/// four-digit year (`Wed, 21-Oct-2015 07:28:00 GMT`) and C's `asctime` form
/// (`Sun Nov  6 08:49:37 1994`) are read too, as recipients must, and ``moved(_:by:)`` writes a
/// date back in the form it was read in.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let fullWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// How a date was written, so that it is written back the same way.
    private enum Form {
        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        case imf
        /// `Sunday, 06-Nov-94 08:49:37 GMT`, or `Wed, 21-Oct-2015 07:28:00 GMT` in cookies.
        case dashed(fullWeekday: Bool, twoDigitYear: Bool)
        /// `Sun Nov  6 08:49:37 1994`
        case asctime
    }

    /// The date `text` names, or nil when it is not an HTTP date in one of the forms above.
    package static func parse(_ text: String) -> Date? {
        read(text)?.date
    }

    /// `text`, an HTTP date, moved by `seconds` and written in the form it had (whole seconds,
    /// rounded down); nil when `text` is not an HTTP date.
    package static func moved(_ text: String, by seconds: TimeInterval) -> String? {
        guard let (date, form) = read(text) else { return nil }
        return write(date.addingTimeInterval(seconds), form)
    }

    /// `date` as an IMF-fixdate, the form HTTP senders use: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// (whole seconds, rounded down).
    package static func format(_ date: Date) -> String {
        write(date, .imf)
    }

    private static func read(_ text: String) -> (date: Date, form: Form)? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?
        let month: Int?
        var year: Int?
        let time: String
        let form: Form
        switch words.count {
        case 6 where words[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, time, form) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), words[4], .imf)
        case 4 where words[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            let twoDigits = parts[2].count == 2
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), Int(parts[2]), words[2])
            form = .dashed(fullWeekday: words[0].count > 3, twoDigitYear: twoDigits)
            if let short = year, twoDigits { year = short < 70 ? 2000 + short : 1900 + short }
        case 5:  // Sun Nov  6 08:49:37 1994
            (day, month, year, time, form) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), words[3], .asctime)
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int64($0) }
        guard let day, let month, let year, clock.count == 3, (0...9999).contains(year),
            (1...CivilCalendar.daysIn(month: Int64(month), year: Int64(year))).contains(Int64(day)),
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day))
        return (Date(timeIntervalSince1970: TimeInterval(days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2])), form)
    }

    private static func write(_ date: Date, _ form: Form) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = Int64((Double(seconds) / 86_400).rounded(.down))
        let inDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let weekday = Int(((days % 7) + 7 + 4) % 7)  // 1 January 1970 was a Thursday
        let pad = CivilCalendar.pad
        let time = "\(pad(inDay / 3_600, 2)):\(pad(inDay / 60 % 60, 2)):\(pad(inDay % 60, 2))"
        let monthName = months[Int(month) - 1]
        switch form {
        case .imf:
            return "\(weekdays[weekday]), \(pad(day, 2)) \(monthName) \(pad(year, 4)) \(time) GMT"
        case .dashed(let fullWeekday, let twoDigitYear):
            let name = fullWeekday ? fullWeekdays[weekday] : weekdays[weekday]
            let yearText = twoDigitYear ? pad(year % 100, 2) : pad(year, 4)
            return "\(name), \(pad(day, 2))-\(monthName)-\(yearText) \(time) GMT"
        case .asctime:
            return "\(weekdays[weekday]) \(monthName) \(day < 10 ? " \(day)" : "\(day)") \(time) \(pad(year, 4))"
        }
    }

    private static func monthNumber(_ word: String) -> Int? {
        months.firstIndex { $0.caseInsensitiveCompare(word) == .orderedSame }.map { $0 + 1 }
    }
}
