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
