import Cassette
import Foundation

/// Inputs people do produce, read in linear time: 10,000 header fields, and a minified one-line
/// file with 4,000 mistakes (each reported with its line and column). Against parsing the same
/// bytes with `JSONSerialization`; each side's median (a_median, in seconds) must stay under a
/// second too.
enum ScalingBenchmarks {
    static func pairs() throws -> [Harness.Pair] {
        var headers = Interaction.Headers()
        for i in 0..<10_000 { headers.add("X-Field-\(i)", "value \(i)") }
        let manyFields = try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(request: .init(url: "https://bench.example/", headers: headers), response: .init(status: 200, headers: headers))
            ]))
        let interaction = #"{"request":{"method":"GET","url":"https://bench.example/"},"response":{"status":0}}"#
        let manyErrors = Data(
            (#"{"version":1,"interactions":["# + Array(repeating: interaction, count: 4_000).joined(separator: ",") + "]}").utf8)
        func time(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return [
            Harness.Pair(
                name: "header_fields_10k", what: "decode a cassette with 10,000 header fields twice over",
                aLabel: "JSONCassetteCodec.decode", bLabel: "JSONSerialization.jsonObject", unit: "s", goal: 3,
                a: { try time { _ = try JSONCassetteCodec.decode(manyFields) } },
                b: { try time { _ = try JSONSerialization.jsonObject(with: manyFields) } }),
            Harness.Pair(
                name: "errors_4k", what: "report 4,000 errors on one line, each with line and column",
                aLabel: "JSONCassetteCodec.decode (throws)", bLabel: "JSONSerialization.jsonObject", unit: "s", goal: 5,
                a: { time { _ = try? JSONCassetteCodec.decode(manyErrors) } },
                b: { try time { _ = try JSONSerialization.jsonObject(with: manyErrors) } }),
        ]
    }
}
