import Foundation

/// ISO 8601 times as APIs write them in JSON — `2026-11-24`, `2026-11-24T10:00Z`,
/// `2026-11-24T10:00:00.123456+01:00`, `2026-11-24 10:00:00` — moved by a number of seconds and
/// written back in the same shape: the same separator, the same fields (a time without seconds
/// stays without), as many fraction digits, the same zone written the same way. A date alone moves
/// by whole days.
package enum ISO8601Time {
    /// `text` moved by `seconds`, in its own shape; nil when `text` is not such a time.
    package static func moved(_ text: String, by seconds: TimeInterval) -> String? {
        guard let parsed = Parsed(text) else { return nil }
        return parsed.moved(by: seconds)
    }

    /// The instant `text` names (a time without a zone read as UTC); nil when it is not one.
    package static func parse(_ text: String) -> Date? {
        Parsed(text).map { Date(timeIntervalSince1970: $0.wallSeconds - TimeInterval($0.offsetSeconds)) }
    }

    private struct Parsed {
        var year: Int64, month: Int64, day: Int64
        /// Nil for a date alone.
        var time: (hour: Int64, minute: Int64, second: Int64?, fraction: String?)?
        var separator: Character = "T"
        /// The zone as written (`Z`, `+01:00`, `-0500`, `+01`), or empty.
        var zone = ""
        var offsetSeconds = 0

        /// Seconds since 1970 of the wall time, as if it were UTC.
        var wallSeconds: TimeInterval {
            let days = CivilCalendar.days(fromCivil: year, month, day)
            guard let time else { return TimeInterval(days * 86_400) }
            let whole = days * 86_400 + time.hour * 3_600 + time.minute * 60 + (time.second ?? 0)
            return TimeInterval(whole) + (time.fraction.flatMap { Double("0." + $0) } ?? 0)
        }

        init?(_ text: String) {
            let bytes = Array(text.utf8)
            func number(_ from: Int, _ count: Int) -> Int64? {
                guard from + count <= bytes.count else { return nil }
                var value: Int64 = 0
                for byte in bytes[from..<(from + count)] {
                    guard (48...57).contains(byte) else { return nil }
                    value = value * 10 + Int64(byte - 48)
                }
                return value
            }
            guard bytes.count >= 10, bytes[4] == 45, bytes[7] == 45, let year = number(0, 4), let month = number(5, 2),
                let day = number(8, 2), (1...12).contains(month), (1...CivilCalendar.daysIn(month: month, year: year)).contains(day)
            else { return nil }
            (self.year, self.month, self.day) = (year, month, day)
            if bytes.count == 10 { return }
            guard bytes[10] == 84 || bytes[10] == 32 || bytes[10] == 116, let hour = number(11, 2), bytes.count >= 16, bytes[13] == 58,
                let minute = number(14, 2), hour < 24, minute < 60
            else { return nil }
            separator = Character(UnicodeScalar(bytes[10]))
            var index = 16
            var second: Int64?
            var fraction: String?
            if index < bytes.count, bytes[index] == 58 {
                guard let value = number(index + 1, 2), value <= 60 else { return nil }
                second = value
                index += 3
                if index < bytes.count, bytes[index] == 46 || bytes[index] == 44 {
                    var end = index + 1
                    while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
                    guard end > index + 1, bytes[index] == 46 else { return nil }
                    fraction = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    index = end
                }
            }
            time = (hour, minute, second, fraction)
            let zone = String(decoding: bytes[index...], as: UTF8.self)
            self.zone = zone
            if zone.isEmpty || zone == "Z" || zone == "z" { return }
            let sign: Int
            switch zone.first {
            case "+": sign = 1
            case "-": sign = -1
            default: return nil
            }
            let digits = zone.dropFirst().filter { $0 != ":" }
            guard digits.count == 2 || digits.count == 4, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                zone.dropFirst().count == digits.count || (zone.count == 6 && Array(zone)[3] == ":"),
                let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : String(digits.dropFirst(2))),
                hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = sign * (hours * 3_600 + minutes * 60)
        }

        func moved(by seconds: TimeInterval) -> String {
            let pad = CivilCalendar.pad
            guard let time else {
                let days = CivilCalendar.days(fromCivil: year, month, day) + Int64((seconds / 86_400).rounded(.down))
                let (y, m, d) = CivilCalendar.civil(fromDays: days)
                return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
            }
            // Whole seconds and fraction units apart: nanoseconds of a 2026 time do not fit a Double.
            let digits = min(time.fraction?.count ?? 0, 18)
            var scale: Int64 = 1
            for _ in 0..<digits { scale *= 10 }
            var fraction = Int64(time.fraction?.prefix(digits) ?? "") ?? 0
            let moveWhole = Int64(seconds.rounded(.down))
            fraction += Int64(((seconds - Double(moveWhole)) * Double(scale)).rounded(.down))
            var whole =
                CivilCalendar.days(fromCivil: year, month, day) * 86_400 + time.hour * 3_600 + time.minute * 60 + (time.second ?? 0)
                + moveWhole
            if fraction >= scale {
                fraction -= scale
                whole += 1
            }
            let days = Int64((Double(whole) / 86_400).rounded(.down))
            let inDay = whole - days * 86_400
            let (y, m, d) = CivilCalendar.civil(fromDays: days)
            var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))\(separator)\(pad(inDay / 3_600, 2)):\(pad(inDay / 60 % 60, 2))"
            if time.second != nil {
                text += ":" + pad(inDay % 60, 2)
                if let written = time.fraction, !written.isEmpty {
                    text += "." + pad(fraction, digits) + String(repeating: "0", count: written.count - digits)
                }
            }
            return text + zone
        }
    }
}
