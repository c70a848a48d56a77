import CassetteFormats
import Foundation
import Testing

/// Inputs people do produce — thousands of header fields, a minified file full of mistakes — are
/// read in linear time. Each case is timed at n and at 4n: a linear reader takes about 4 times as
/// long, a quadratic one 16 times. The bound (10×) is generous for noisy machines; the benchmark
/// (`header_fields_10k`, `errors_4k`) measures the absolute times.
@Suite(.timingIsolated) struct LinearTimeTests {
    static func seconds(_ work: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try work()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// The best of three runs, to leave out a moment when the machine was busy.
    static func best(_ work: () throws -> Void) rethrows -> Double {
        try (0..<3).map { _ in try seconds(work) }.min() ?? 0
    }

    /// How much longer `large` takes than `small`, measured up to three times and the lowest kept:
    /// a load spike from the tests running beside it (it measured 12 once in a full parallel run)
    /// is not taken for growth faster than linear, which measures about 16 every time.
    static func ratio(_ large: () throws -> Void, to small: () throws -> Void, under bound: Double) rethrows -> Double {
        var lowest = Double.infinity
        for _ in 0..<3 where lowest >= bound {
            lowest = min(lowest, try best(large) / max(1e-6, try best(small)))
        }
        return lowest
    }

    @Test(arguments: CassetteFormat.allCases)
    func thousandsOfHeaderFieldsReadInLinearTime(_ format: CassetteFormat) throws {
        func data(_ count: Int) throws -> Data {
            var headers = Interaction.Headers()
            for i in 0..<count { headers.add("X-Field-\(i)", "value \(i)") }
            return try format.encode(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://a.example/", headers: headers), response: .init(status: 200, headers: headers))
                ]))
        }
        let small = try data(2_500)
        let large = try data(10_000)
        let decoded = try format.decode(large)
        #expect(decoded.interactions.first?.response?.headers.count == 10_000)
        let ratio = try Self.ratio({ _ = try format.decode(large) }, to: { _ = try format.decode(small) }, under: 10)
        #expect(ratio < 10, "10,000 fields took \(ratio)x as long as 2,500")
    }

    @Test func thousandsOfErrorsOnOneLineAreReportedInLinearTime() throws {
        func data(_ count: Int) -> Data {
            let interaction = #"{"request":{"method":"GET","url":"https://a.example/"},"response":{"status":0}}"#
            return Data(
                (#"{"version":1,"interactions":["# + Array(repeating: interaction, count: count).joined(separator: ",") + "]}").utf8)
        }
        func problems(_ data: Data) -> [CassetteFormatError.Problem] {
            do {
                _ = try JSONCassetteCodec.decode(data)
                return []
            } catch {
                return error.problems
            }
        }
        let small = data(1_000)
        let large = data(4_000)
        let found = problems(large)
        #expect(found.count == 4_000)
        #expect(found.last?.line == 1 && found.last?.column == 1 + 29 + 3_999 * 80 + 76, "\(String(describing: found.last))")
        let ratio = Self.ratio({ _ = problems(large) }, to: { _ = problems(small) }, under: 10)
        #expect(ratio < 10, "4,000 errors took \(ratio)x as long as 1,000")
    }
}
