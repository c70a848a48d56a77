import CassetteFormats
import Foundation
import Testing

/// One validation for the three formats: the same bad value is refused by JSON, HTTP-message and
/// HAR files alike, each problem with the file, a line and column, the place in the cassette and
/// the same words; what is accepted is accepted by all three and reads the same.
@Suite struct BadInputTests {
    /// The same interaction in each format, with `json`, `http` and `har` put into it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// What goes into the interaction object of a JSON cassette (after `"response": … ,`).
        var json: String
        /// The `###` line's fields of an `.http` cassette.
        var http: String
        /// What goes into the entry object of a HAR file (after `"response": … ,`).
        var har: String
        /// The place reported, for JSON, .http and HAR.
        var paths: (json: String, http: String, har: String)
        /// Words every format's message contains.
        var says: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(
            name: "a latency longer than a day", json: #""latency": { "firstByte": 0, "duration": 1e300 }"#,
            http: "latency=fixed:0,1e300", har: #""_cassette": { "latency": "fixed:0,1e300" }"#,
            paths: ("interactions[0].latency", "interactions[0].latency", "log.entries[0]._cassette.latency"),
            says: "duration (1e+300 s) is longer than a day (86400 s); to simulate a server that never answers, use the error \"timedOut\""),
        .init(
            name: "a download speed under one byte per second", json: #""latency": { "bytesPerSecond": 1e-300 }"#,
            http: "latency=speed:1e-300", har: #""_cassette": { "latency": "speed:1e-300" }"#,
            paths: ("interactions[0].latency.bytesPerSecond", "interactions[0].latency", "log.entries[0]._cassette.latency"),
            says: "expected bytesPerSecond to be at least 1 (a finite number), found 1e-300"),
        .init(
            name: "a scale above 1000", json: #""latency": { "scaled": 1e9 }"#,
            http: "latency=scaled:1e9", har: #""_cassette": { "latency": "scaled:1e9" }"#,
            paths: ("interactions[0].latency", "interactions[0].latency", "log.entries[0]._cassette.latency"),
            says: "the scale factor must be from 0 to 1000, found 1000000000"),
        .init(
            name: "a recorded timing longer than a day", json: #""timing": { "firstByte": 0, "duration": 1e300 }"#,
            http: "firstByte=0 duration=1e300", har: #""timings": { "send": 0, "wait": 0, "receive": 1e303 }"#,
            paths: ("interactions[0].timing", "interactions[0].timing", "log.entries[0].timings"),
            says: "duration (1e+300 s) is longer than a day (86400 s)"),
        .init(
            name: "a duration before the first byte", json: #""timing": { "firstByte": 2, "duration": 1 }"#,
            http: "firstByte=2 duration=1",
            har: #""timings": { "send": 0, "wait": 1, "receive": 0 }, "_cassette": { "timing": { "firstByte": 2, "duration": 1 } }"#,
            paths: ("interactions[0].timing", "interactions[0].timing", "log.entries[0]._cassette.timing"),
            says: "duration (1) cannot be less than firstByte (2)"),
    ]

    static func document(_ format: CassetteFormat, _ test: Case?, method: String = "GET") -> String {
        switch format {
        case .json:
            let extra = test.map { ", " + $0.json } ?? ""
            return """
                {
                  "version": 1,
                  "interactions": [
                    { "request": { "method": "\(method)", "url": "https://a.example/" }, "response": { "status": 200 }\(extra) }
                  ]
                }

                """
        case .httpMessages:
            return """
                # version: 1
                ### \(test?.http ?? "")
                \(method) https://a.example/

                HTTP/1.1 200 OK


                """
        case .har:
            let extra = test.map { ", " + $0.har } ?? ""
            return """
                { "log": { "version": "1.2", "creator": { "name": "Tool", "version": "1" }, "entries": [
                  { "request": { "method": "\(method)", "url": "https://a.example/" }, "response": { "status": 200 }\(extra) }
                ] } }

                """
        }
    }

    static func problems(_ text: String, as format: CassetteFormat) -> [CassetteFormatError.Problem] {
        do {
            _ = try format.decode(Data(text.utf8), file: "bad.\(format.fileExtension)")
            return []
        } catch {
            #expect(error.file == "bad.\(format.fileExtension)")
            return error.problems
        }
    }

    @Test(arguments: cases)
    func theSameBadValueIsRefusedByEveryFormatWithItsPlace(_ test: Case) throws {
        for format in CassetteFormat.allCases {
            #expect(Self.problems(Self.document(format, nil), as: format).isEmpty, "the valid \(format) document")
            let problems = Self.problems(Self.document(format, test), as: format)
            let problem = try #require(problems.first, "\(format) accepted \(test.name)")
            let path = format == .json ? test.paths.json : format == .httpMessages ? test.paths.http : test.paths.har
            #expect(problems.count == 1, "\(format): \(problems)")
            #expect(problem.path?.description == path, "\(format)")
            #expect(problem.line == (format == .har ? 2 : format == .json ? 4 : 2), "\(format)")
            #expect(problem.column != nil)
            #expect(problem.message.contains(test.says), "\(format): \(problem.message)")
        }
    }

    @Test(arguments: CassetteFormat.allCases)
    func anEmptyFileIsRefusedByEveryFormat(_ format: CassetteFormat) throws {
        for text in ["", "\n  \n"] {
            let problem = try #require(Self.problems(text, as: format).first)
            #expect(problem.message.hasPrefix("the file is empty"), "\(problem)")
            #expect(problem.line != nil)
        }
    }

    @Test(arguments: CassetteFormat.allCases)
    func aMethodStartingWithAHashIsRefusedByEveryFormat(_ format: CassetteFormat) throws {
        // In a .http file such a line is a comment, so no format reads or writes such a method:
        // what one format holds, every other can hold too.
        let message = "an HTTP method cannot start with '#', found \"#GET\""
        if format != .httpMessages {
            let problems = Self.problems(Self.document(format, nil, method: "#GET"), as: format)
            #expect(problems.map(\.message).contains(message), "\(problems)")
        }
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(method: "#GET", url: "https://a.example/"), response: .init(status: 200))
        ])
        #expect(
            throws: CassetteFormatError(
                file: nil,
                problems: [.init(path: JSONPath([.key("interactions"), .index(0), .key("request"), .key("method")]), message: message)])
        ) {
            try format.encode(document)
        }
    }

    @Test(arguments: CassetteFormat.allCases)
    func aByteOrderMarkIsSkippedByEveryFormat(_ format: CassetteFormat) throws {
        // RFC 8259 lets a reader ignore it, and Windows editors write one: documented as accepted.
        let plain = Data(Self.document(format, nil).utf8)
        let marked = Data([0xEF, 0xBB, 0xBF]) + plain
        #expect(try format.decode(marked) == format.decode(plain))
    }

    @Test(arguments: [CassetteFormat.json, .har])
    func aRepeatedKeyIsRefusedByTheJSONFormats(_ format: CassetteFormat) throws {
        let text = Self.document(format, nil).replacingOccurrences(of: #""status": 200"#, with: #""status": 200, "status": 500"#)
        let problem = try #require(Self.problems(text, as: format).first)
        #expect(problem.message.hasPrefix("duplicate key \"status\""), "\(problem)")
        #expect(problem.path?.description == (format == .json ? "interactions[0].response.status" : "log.entries[0].response.status"))
    }

    @Test func harChecksItsVersionAndNegativeTimings() throws {
        let version = Self.document(.har, nil).replacingOccurrences(of: #""version": "1.2""#, with: #""version": "2.0""#)
        #expect(
            Self.problems(version, as: .har).map(\.description) == [
                #"log.version: unsupported HAR version the string "2.0"; Cassette reads HAR 1.1 and 1.2"#
            ])
        for accepted in [#""version": "1.1""#, #""version": """#] {
            #expect(
                Self.problems(Self.document(.har, nil).replacingOccurrences(of: #""version": "1.2""#, with: accepted), as: .har).isEmpty)
        }
        var negative = Case(
            name: "", json: "", http: "", har: #""timings": { "send": -1, "wait": -5, "receive": 1 }"#,
            paths: ("", "", ""), says: "")
        #expect(
            Self.problems(Self.document(.har, negative), as: .har).map(\.description)
                == ["log.entries[0].timings.wait: expected a number of milliseconds, zero or more, or -1 for not applicable, found -5"])
        negative.har = #""timings": { "send": -1, "wait": 5, "receive": 1 }"#  // -1: not applicable
        #expect(Self.problems(Self.document(.har, negative), as: .har).isEmpty)
    }
}
