import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// JSON → HTTP messages → JSON and JSON → HAR → JSON give back the same interactions, for the
/// generated corpus of ``RoundTripTests`` (1,000 interactions, two 10 MB bodies).
@Suite struct FormatConversionTests {
    /// A file's format comes from its extension as `NSString.pathExtension` reads it.
    @Test(arguments: [
        "a.json", "Cassettes/login.http", "/tmp/x.HAR", "dir.json/file", "a.b.har", "trailing.http/", ".json", "noext",
        "dir/.http", "", "/", "a.", "ünï/cödé.json",
    ])
    func theFormatOfAPathIsItsExtensionAsNSStringReadsIt(path: String) {
        #expect(CassetteFormat.pathExtension(of: path) == (path as NSString).pathExtension[...], "\(path)")
        #expect(CassetteFormat(path: path) == CassetteFormat(fileExtension: (path as NSString).pathExtension) ?? .json)
    }

    @Test(arguments: [CassetteFormat.httpMessages, .har])
    func theGeneratedCorpusSurvivesAConversion(through format: CassetteFormat) async throws {
        try await TimingIsolation.run {
            var generator = InteractionGenerator(seed: 0xCA55_E77E)
            var checked = 0
            for batch in 0..<125 {
                let original = generator.document(count: 8, hugeBody: batch == 40 || batch == 99)
                let json = try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(original))
                let converted = try format.encode(json)
                let read = try format.decode(converted, file: "generated-\(batch).\(format.fileExtension)")
                let back = try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(read))
                for (i, (a, b)) in zip(original.interactions, back.interactions).enumerated() where a != b {
                    Issue.record("batch \(batch) interaction \(i) changed through \(format): \(Self.difference(a, b))")
                }
                #expect(back.interactions.count == original.interactions.count)
                #expect(back.recordedWith == original.recordedWith, "batch \(batch)")
                // Writing the same document again gives the same bytes.
                #expect(try format.encode(read) == converted, "batch \(batch)")
                checked += original.interactions.count
            }
            #expect(checked == 1000)
        }
    }

    /// Which part of an interaction differs, for a failure message a person can act on.
    static func difference(_ a: Interaction, _ b: Interaction) -> String {
        var parts: [String] = []
        if a.recordedAt != b.recordedAt {
            parts.append("recordedAt \(String(describing: a.recordedAt)) → \(String(describing: b.recordedAt))")
        }
        if a.request.method != b.request.method || a.request.url != b.request.url { parts.append("request line") }
        if a.request.headers != b.request.headers {
            parts.append("request headers \(a.request.headers.fields) → \(b.request.headers.fields)")
        }
        if a.request.body != b.request.body {
            parts.append("request body \(a.request.body.data.count) → \(b.request.body.data.count) bytes")
        }
        if a.response?.status != b.response?.status || a.response?.url != b.response?.url { parts.append("response status/url") }
        if a.response?.headers != b.response?.headers { parts.append("response headers") }
        if a.response?.body != b.response?.body {
            parts.append(
                "response body \(String(describing: a.response?.body.data.count)) → \(String(describing: b.response?.body.data.count)) bytes"
            )
        }
        if a.error != b.error { parts.append("error \(String(describing: a.error)) → \(String(describing: b.error))") }
        if a.timing != b.timing { parts.append("timing \(String(describing: a.timing)) → \(String(describing: b.timing))") }
        if a.latency != b.latency { parts.append("latency \(String(describing: a.latency)) → \(String(describing: b.latency))") }
        return parts.joined(separator: "; ")
    }
}
