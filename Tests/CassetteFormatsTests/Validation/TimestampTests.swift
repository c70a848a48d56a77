import Foundation
import Testing

@testable import CassetteFormats

@Suite struct TimestampTests {
    @Test(
        arguments: [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_795_342_530_123, "2026-11-22T10:15:30.123Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        ] as [(Int64, String)])
    func formatsAndParsesExactly(milliseconds: Int64, text: String) throws {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        #expect(Timestamp.format(date) == text)
        #expect(try Timestamp.parse(text).get() == date)
    }

    @Test func acceptsOffsetsAndLongFractions() throws {
        let utc = try Timestamp.parse("2026-11-22T10:15:30.123Z").get()
        #expect(try Timestamp.parse("2026-11-22T11:15:30.123+01:00").get() == utc)
        #expect(try Timestamp.parse("2026-11-22T05:15:30.123-05:00").get() == utc)
        #expect(try Timestamp.parse("2026-11-22T10:15:30.1229999Z").get() == utc)
        #expect(try Timestamp.parse("2026-11-22T10:15:30Z").get() == Date(timeIntervalSince1970: 1_795_342_530))
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-02-29T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T10:15:30.Z",
        "2026-11-22 10:15:30Z", "2026-11-22T10:15:30+0100", "2026-11-22T10:15:30Zjunk",
    ])
    func rejectsWhatIsNotATimestamp(text: String) {
        if case .success(let date) = Timestamp.parse(text) {
            Issue.record("\"\(text)\" parsed as \(date)")
        }
    }

    @Test func datesOutsideFourDigitYearsAreNotWritten() {
        #expect(Timestamp.format(Date.distantFuture) != nil)  // year 4001
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e12)) == nil)
        #expect(Timestamp.format(Date(timeIntervalSince1970: .infinity)) == nil)
    }
}
