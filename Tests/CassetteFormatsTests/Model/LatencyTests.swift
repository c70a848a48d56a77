import CassetteFormats
import Foundation
import Testing

@Suite struct LatencyTests {
    static let recorded = Interaction.Timing(firstByte: 0.3, duration: 0.6)

    @Test func eachPolicyPlansTheHeadAndTheEnd() {
        func plan(_ latency: Latency, bodySize: Int = 1000) -> [Double] {
            let timing = latency.timing(recorded: Self.recorded, bodySize: bodySize)
            return [timing.firstByte, timing.duration]
        }
        #expect(plan(.instant) == [0, 0])
        #expect(plan(.recorded) == [0.3, 0.6])
        #expect(plan(.scaled(0.5)) == [0.15, 0.3])
        #expect(plan(.scaled(2)) == [0.6, 1.2])
        #expect(plan(.fixed(firstByte: 1, duration: 3)) == [1, 3])
        #expect(plan(.downloadSpeed(.edge), bodySize: 32 * 1024) == [0, 2])
        #expect(plan(.downloadSpeed(.gprs, firstByte: 0.5), bodySize: 7 * 1024) == [0.5, 1.5])
        #expect(plan(.downloadSpeed(.edge), bodySize: 0) == [0, 0])
    }

    @Test func withoutARecordedTimingRecordedAndScaledAreInstant() {
        for latency in [Latency.recorded, .scaled(3)] {
            #expect(latency.timing(recorded: nil, bodySize: 10) == Interaction.Timing(firstByte: 0, duration: 0))
        }
    }

    @Test func thePresetsAreOHHTTPStubsKilobytesPerSecond() {
        #expect(DownloadSpeed.presets.map(\.bytesPerSecond) == [7, 16, 400, 900, 1500].map { Double($0 * 1024) })
        #expect(DownloadSpeed.presets.map(\.description) == ["gprs", "edge", "3g", "3g+", "wifi"])
        #expect(DownloadSpeed.preset(named: "3g+") == .threeGPlus)
        #expect(DownloadSpeed.preset(named: "4g") == nil)
        #expect(DownloadSpeed(bytesPerSecond: 16 * 1024) == .edge)
    }

    @Test(arguments: [
        ("instant", Latency.instant), ("recorded", .recorded), ("scaled:0.5", .scaled(0.5)),
        ("fixed:0.3,0.6", .fixed(firstByte: 0.3, duration: 0.6)), ("speed:edge", .downloadSpeed(.edge)),
        ("speed:2048,0.25", .downloadSpeed(.init(bytesPerSecond: 2048), firstByte: 0.25)),
    ])
    func theTextFormReadsAndWritesBack(text: String, latency: Latency) {
        #expect(Latency(parsing: text) == latency)
        #expect(latency.description == text)
    }

    @Test(arguments: [
        "", "Recorded", "instant:1", "scaled", "scaled:", "scaled:-1", "scaled:fast", "fixed:1", "fixed:2,1",
        "fixed:1,2,3", "speed:4g", "speed:0", "speed:edge,-1", "speed:edge,1,2", "scaled:nan", "scaled:inf",
        "fixed:0,1e300", "fixed:86401,86401", "speed:1e-300", "speed:0.5", "scaled:1001",
    ])
    func invalidTextFormsAreRejected(text: String) {
        #expect(Latency(parsing: text) == nil)
    }

    @Test func problemsNameTheValue() {
        #expect(Latency.scaled(-1).problem == "the scale factor must be from 0 to 1000, found -1")
        #expect(Latency.scaled(1e300).problem == "the scale factor must be from 0 to 1000, found 1e+300")
        #expect(Latency.fixed(firstByte: 2, duration: 1).problem?.hasPrefix("duration (1) cannot be less than firstByte (2)") == true)
        #expect(
            Latency.downloadSpeed(.init(bytesPerSecond: 0)).problem == "expected bytesPerSecond to be at least 1 (a finite number), found 0"
        )
        #expect(
            Latency.downloadSpeed(.init(bytesPerSecond: 1e-300)).problem
                == "expected bytesPerSecond to be at least 1 (a finite number), found 1e-300")
        #expect(
            Latency.fixed(firstByte: 0, duration: 1e300).problem
                == "duration (1e+300 s) is longer than a day (86400 s); to simulate a server that never answers, use the error \"timedOut\""
        )
        #expect(Latency.recorded.problem == nil)
    }

    @Test func everyFormIsWrittenAsDocumentedAndReadBack() throws {
        let forms: [(Latency, String)] = [
            (.instant, #""latency": "instant""#),
            (.recorded, #""latency": "recorded""#),
            (.scaled(0.5), #""latency": { "scaled": 0.5 }"#),
            (.fixed(firstByte: 2, duration: 2.5), #""latency": { "firstByte": 2, "duration": 2.5 }"#),
            (.downloadSpeed(.edge, firstByte: 0.1), #""latency": { "bytesPerSecond": "edge", "firstByte": 0.1 }"#),
            (.downloadSpeed(.init(bytesPerSecond: 1000)), #""latency": { "bytesPerSecond": 1000 }"#),
        ]
        for (latency, written) in forms {
            let document = CassetteDocument(interactions: [
                Interaction(
                    request: .init(method: "GET", url: "https://api.example.com/feed"),
                    response: .init(status: 200), latency: latency)
            ])
            let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
            #expect(text.contains("      " + written + "\n"), "\(text)")
            #expect(try JSONCassetteCodec.decode(Data(text.utf8)).interactions.first?.latency == latency)
        }
    }

    @Test func afterBytesIsWrittenInTheErrorAndReadBack() throws {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "GET", url: "https://api.example.com/feed"),
                response: .init(status: 200, body: .init(Data("0123456789".utf8))),
                error: .init(code: .networkConnectionLost, afterBytes: 4))
        ])
        let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        #expect(text.contains(#"      "error": { "code": "networkConnectionLost", "afterBytes": 4 }"#), "\(text)")
        #expect(try JSONCassetteCodec.decode(Data(text.utf8)) == document)
    }

    @Test func encodingRefusesAnAfterBytesBeyondTheBody() {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "GET", url: "https://api.example.com/feed"),
                response: .init(status: 200, body: .init(Data("abc".utf8))),
                error: .init(code: .networkConnectionLost, afterBytes: 4))
        ])
        #expect(
            document.problems().map(\.description) == [
                "interactions[0].error.afterBytes: afterBytes (4) is more than the response body holds (3 bytes)"
            ])
    }
}
