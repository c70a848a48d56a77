import Cassette
import Foundation

/// Inputs people do produce, read in linear time: 10,000 header fields, and a minified one-line
/// file with 4,000 mistakes (each reported with its line and column), against parsing the same
/// bytes with `JSONSerialization`; a 1 MB line of token characters searched for secrets (the
/// assignment pattern once read a 40,000-character run in 93 s), and a JSON list of 10,000
/// addresses redacted by a body pattern (over 400 s when each replacement rebuilt the text),
/// against a plain pass over the same bytes. Each side's median (a_median, in seconds) must stay
/// under a second too.
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
        // Token characters in a fixed pseudo-random order, the same every run.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var state: UInt64 = 42
        let line = String(
            decoding: (0..<1_000_000).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return alphabet[Int(state >> 33) % alphabet.count]
            }, as: UTF8.self)
        let scanner = try SecretScanner()
        let linear = try NSRegularExpression(pattern: "[A-Za-z0-9_-]+")
        let addresses = Data(("[" + (0..<10_000).map { "\"user.\($0)@example.com\"" }.joined(separator: ",") + "]").utf8)
        let listed = Interaction(
            request: .init(
                method: "POST", url: "https://bench.example/list", headers: ["Content-Type": "application/json"], body: .init(addresses)),
            response: .init(status: 204))
        let rules = Redaction.default.redactingBodyMatches(#"[a-z0-9.]+@example\.com"#)
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
            Harness.Pair(
                name: "secrets_1mb_line", what: "check-secrets over one line of 1,000,000 token characters (goal: under a second)",
                aLabel: "SecretScanner.findings(inText:)", bLabel: "one linear regular expression", unit: "s", goal: 1_000,
                a: { time { _ = scanner.findings(inText: line) } },
                b: { time { _ = linear.numberOfMatches(in: line, range: NSRange(location: 0, length: line.utf16.count)) } }),
            Harness.Pair(
                name: "redact_10k_matches", what: "redact 10,000 body-pattern matches in a 290 KB JSON list (goal: under a second)",
                aLabel: "Redaction.redacting", bLabel: "JSONSerialization.jsonObject", unit: "s", goal: 1_000,
                a: { try time { _ = try rules.redacting([listed]) } },
                b: { try time { _ = try JSONSerialization.jsonObject(with: addresses) } }),
        ]
    }
}
