import Foundation
import Testing

@testable import CassetteFormats

/// HTTP dates (RFC 9110 §5.6.7), read in all three forms and written as IMF-fixdate.
@Suite struct HTTPDateTests {
    /// 6 November 1994, 08:49:37 UTC: RFC 9110's own example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func readsEveryFormRecipientsMustAccept(text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test func writesIMFFixdate() {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400.9)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    @Test func roundTripsEveryDayOfFourCenturies() {
        var day = -146_097
        while day < 146_097 {
            let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400 + 45_296)
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "day \(day)")
            day += 97
        }
    }

    @Test(arguments: [
        "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nox 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sunday, 06-Nov 08:49:37 GMT",
    ])
    func refusesWhatIsNotAnHTTPDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

/// Times moved by a number of seconds, each written back in the form it was read in.
@Suite struct MovedTimeTests {
    static let httpCases: [(String, Double, String)] = [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 86_400.0 * 30 + 1, "Tue, 06 Dec 1994 08:49:38 GMT"),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 86_400.0, "Monday, 07-Nov-94 08:49:37 GMT"),
        ("Wed, 21-Oct-2015 07:28:00 GMT", 3_600.0, "Wed, 21-Oct-2015 08:28:00 GMT"),
        ("Sun Nov  6 08:49:37 1994", 86_400.0 * 4, "Thu Nov 10 08:49:37 1994"),
        ("Thu Nov 10 08:49:37 1994", -86_400.0 * 4, "Sun Nov  6 08:49:37 1994"),
        ("Thu, 31 Dec 2026 23:59:59 GMT", 1.5, "Fri, 01 Jan 2027 00:00:00 GMT"),
    ]

    @Test(arguments: httpCases)
    func httpDatesKeepTheirForm(text: String, seconds: Double, expected: String) {
        #expect(HTTPDate.moved(text, by: seconds) == expected)
        #expect(HTTPDate.moved(text, by: 0) == text, "moved by nothing, written back byte for byte")
    }

    static let isoCases: [(String, Double, String)] = [
        ("2026-11-24T10:00Z", 90.0, "2026-11-24T10:01Z"),
        ("2026-11-24T10:00:00Z", 86_400.0 * 30, "2026-12-24T10:00:00Z"),
        ("2026-11-24T10:00:00.123Z", 0.5, "2026-11-24T10:00:00.623Z"),
        ("2026-11-24T23:59:59.999999+01:00", 0.000001, "2026-11-25T00:00:00.000000+01:00"),
        ("2026-11-24T10:00:00.123456789-0500", 1, "2026-11-24T10:00:01.123456789-0500"),
        ("2026-11-24 10:00:00", 3_600, "2026-11-24 11:00:00"),
        ("2026-11-24t10:00:00+05", 60, "2026-11-24t10:01:00+05"),
        ("2026-11-24", 86_400.0 * 7 + 5, "2026-12-01"),
        ("2024-02-28T12:00:00Z", 86_400, "2024-02-29T12:00:00Z"),
    ]

    @Test(arguments: isoCases)
    func isoTimesKeepPrecisionAndZone(text: String, seconds: Double, expected: String) {
        #expect(ISO8601Time.moved(text, by: seconds) == expected)
        #expect(ISO8601Time.moved(text, by: 0) == text)
    }

    @Test func isoTimesNameTheirInstant() {
        #expect(ISO8601Time.parse("1994-11-06T08:49:37Z") == HTTPDateTests.example)
        #expect(ISO8601Time.parse("1994-11-06T09:49:37+01:00") == HTTPDateTests.example)
        #expect(ISO8601Time.parse("1994-11-06T03:49:37.000-0500") == HTTPDateTests.example)
    }

    @Test(arguments: ["", "2026", "2026-13-01", "2026-02-30", "2026-11-24T25:00Z", "2026-11-24T10:00+5", "2026-11-24T10:00:00Zulu", "soon"])
    func notISOTimes(text: String) {
        #expect(ISO8601Time.moved(text, by: 1) == nil)
    }
}
