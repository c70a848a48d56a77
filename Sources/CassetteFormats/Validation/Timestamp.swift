import Foundation

/// `recordedAt` timestamps: ISO 8601 in UTC, to the millisecond (`2026-11-22T10:15:30.123Z`).
///
/// Written by hand rather than with `ISO8601DateFormatter` so the text is the same on every
/// platform and a value read back is exactly the value written: a timestamp is the `Date`
/// nearest to a whole number of milliseconds.
package enum Timestamp {
    /// The earliest and latest instants a four-digit year can write, in milliseconds since 1970.
    private static let millisecondRange: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// `date` rounded to the millisecond, or nil when its year is outside 0000–9999.
    package static func rounded(_ date: Date) -> Date? {
        milliseconds(of: date).map(date(milliseconds:))
    }

    /// The text for `date`, or nil when its year is outside 0000–9999.
    package static func format(_ date: Date) -> String? {
        guard let ms = milliseconds(of: date) else { return nil }
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        return CivilCalendar.pad(year, 4) + "-" + CivilCalendar.pad(month, 2) + "-" + CivilCalendar.pad(day, 2) + "T"
            + CivilCalendar.pad(hour, 2) + ":" + CivilCalendar.pad(minute, 2)
            + ":" + CivilCalendar.pad(second, 2) + "." + CivilCalendar.pad(millisecond, 3) + "Z"
    }

    /// The instant `text` names, rounded to the millisecond, or a message saying what is wrong.
    ///
    /// Accepts `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length, and `Z` or `±HH:MM`.
    package static func parse(_ text: String) -> Result<Date, TimestampError> {
        let bad = TimestampError(message: "expected an ISO 8601 time like \"2026-11-22T10:15:30.123Z\", found \"\(text)\"")
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in start..<(start + count) {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        func byte(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
            let day = number(8, 2), byte(10, "T") || byte(10, "t"), let hour = number(11, 2), byte(13, ":"),
            let minute = number(14, 2), byte(16, ":"), let second = number(17, 2)
        else { return .failure(bad) }
        var i = 19
        var fractionMilliseconds = 0.0
        if byte(i, ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > start, let fraction = Double("0." + String(decoding: b[start..<i], as: UTF8.self)) else {
                return .failure(bad)
            }
            fractionMilliseconds = fraction * 1000
        }
        var offsetMinutes: Int64 = 0
        if byte(i, "Z") || byte(i, "z") {
            i += 1
        } else if byte(i, "+") || byte(i, "-"), let h = number(i + 1, 2), byte(i + 3, ":"), let m = number(i + 4, 2) {
            guard h < 24, m < 60 else { return .failure(bad) }
            offsetMinutes = (h * 60 + m) * (byte(i, "-") ? -1 : 1)
            i += 6
        } else {
            return .failure(TimestampError(message: "expected a time zone (\"Z\" for UTC, or like \"+01:00\") in \"\(text)\""))
        }
        guard i == b.count else { return .failure(bad) }
        guard (1...12).contains(month), (1...CivilCalendar.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return .failure(TimestampError(message: "\"\(text)\" is not a valid date and time")) }
        let seconds = CivilCalendar.days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        let ms = seconds * 1000 + Int64(fractionMilliseconds.rounded())
        guard millisecondRange.contains(ms) else {
            return .failure(TimestampError(message: "\"\(text)\" is outside the years 0000 to 9999 in UTC"))
        }
        return .success(date(milliseconds: ms))
    }

    private static func milliseconds(of date: Date) -> Int64? {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite, ms >= Double(millisecondRange.lowerBound), ms <= Double(millisecondRange.upperBound) else {
            return nil
        }
        return Int64(ms)
    }

    private static func date(milliseconds ms: Int64) -> Date {
        Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = a >= 0 ? a / b : (a - b + 1) / b
        return (q, a - q * b)
    }
}

/// Why a timestamp could not be read.
package struct TimestampError: Error, Sendable {
    package var message: String
}
