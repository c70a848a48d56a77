import CassetteFormats
import Foundation
import Testing

/// Every malformed fixture fails with the right place and the right words, and nothing else.
@Suite struct MalformedCassetteTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        /// The JSON path, or nil for a syntax error.
        var path: String?
        var line: Int
        var column: Int
        /// Words the message must contain.
        var says: String
        var testDescription: String { file }
    }

    static let expectations: [Expectation] = [
        // Syntax: line and column, no path.
        .init(file: "empty.json", path: nil, line: 1, column: 1, says: "the file is empty; expected a JSON object"),
        .init(file: "whitespace-only.json", path: nil, line: 4, column: 1, says: "the file is empty"),
        .init(file: "truncated.json", path: nil, line: 5, column: 19, says: "expected a key in double quotes, found end of file"),
        .init(file: "trailing-comma.json", path: nil, line: 4, column: 1, says: "JSON does not allow a comma before '}'"),
        .init(file: "not-utf8.json", path: nil, line: 6, column: 48, says: "invalid UTF-8 byte 0xE9; cassettes must be saved as UTF-8"),
        .init(file: "utf16.json", path: nil, line: 1, column: 1, says: "the file is UTF-16"),
        .init(file: "line-break-in-string.json", path: nil, line: 3, column: 28, says: "a line break inside a string"),
        .init(file: "deep-nesting.json", path: nil, line: 6, column: 305, says: "JSON nested deeper than 256 levels"),
        .init(file: "text-after-document.json", path: nil, line: 5, column: 1, says: "unexpected 'x' after the end of the JSON document"),
        .init(file: "single-quotes.json", path: nil, line: 2, column: 3, says: "expected a key in double quotes, found '''"),
        .init(file: "comment.json", path: nil, line: 1, column: 1, says: "expected a value, found '/'"),
        .init(file: "nan-timing.json", path: nil, line: 7, column: 32, says: "expected a value, found 'NaN'"),
        .init(
            file: "number-leading-zero.json", path: nil, line: 6, column: 31,
            says: "invalid number '0200': JSON numbers cannot have leading zeros"),
        // Shape: a path, a line and a column.
        .init(
            file: "root-array.json", path: "$", line: 1, column: 1,
            says: "expected a cassette object ({ \"version\": 1, \"interactions\": [] }), found an array"),
        .init(file: "missing-version.json", path: "$", line: 1, column: 1, says: "missing required field \"version\" (expected 1)"),
        .init(
            file: "version-99.json", path: "version", line: 2, column: 14,
            says: "unsupported format version 99; this version of Cassette reads version 1"),
        .init(
            file: "version-string.json", path: "version", line: 2, column: 14,
            says: "expected the format version 1 (a whole number), found the string \"1\""),
        .init(
            file: "unknown-root-field.json", path: "interaction", line: 3, column: 3,
            says: "unknown field \"interaction\" (did you mean \"interactions\"?)"),
        .init(
            file: "unknown-interaction-field.json", path: "interactions[0].reponse", line: 6, column: 7,
            says:
                "unknown field \"reponse\" (did you mean \"response\"?); expected one of \"recordedAt\", \"request\", \"challenges\", \"response\", \"error\", \"timing\""
        ),
        .init(
            file: "challenge-answer-unknown.json", path: "interactions[0].challenges[0].answer", line: 7, column: 60,
            says: "unknown answer \"useCredentials\" (did you mean \"useCredential\"?)"),
        .init(
            file: "challenge-status-not-401.json", path: "interactions[0].challenges[0].response.status", line: 7, column: 85,
            says: "a challenge is a 401 or 407 response, found 403"),
        .init(
            file: "interactions-not-array.json", path: "interactions", line: 3, column: 19,
            says: "expected an array of interactions, found an object"),
        .init(
            file: "interaction-not-object.json", path: "interactions[0]", line: 3, column: 20,
            says: "expected an interaction object, found the string \"GET https://a.example/\""),
        .init(
            file: "neither-response-nor-error.json", path: "interactions[0]", line: 4, column: 5,
            says: "expected a \"response\", an \"error\", or both"),
        .init(file: "missing-request.json", path: "interactions[0]", line: 4, column: 5, says: "missing required field \"request\""),
        .init(file: "duplicate-key.json", path: "interactions[0].response.status", line: 6, column: 36, says: "duplicate key \"status\""),
        .init(
            file: "duplicate-key-in-json-body.json", path: "interactions[0].response.body.json.user.id", line: 6, column: 75,
            says: "duplicate key \"id\" in a JSON body"),
        // Values.
        .init(
            file: "status-zero.json", path: "interactions[0].response.status", line: 6, column: 31,
            says: "expected an HTTP status from 100 to 599, found 0"),
        .init(
            file: "status-1000.json", path: "interactions[0].response.status", line: 6, column: 31,
            says: "expected an HTTP status from 100 to 599, found 1000"),
        .init(
            file: "status-string.json", path: "interactions[0].response.status", line: 6, column: 31,
            says: "expected an HTTP status like 200 (a whole number), found the string \"200\""),
        .init(
            file: "status-fraction.json", path: "interactions[0].response.status", line: 6, column: 31,
            says: "(a whole number), found 200.5"),
        .init(
            file: "method-empty.json", path: "interactions[0].request.method", line: 5, column: 30,
            says: "expected an HTTP method like \"GET\", found \"\""),
        .init(
            file: "response-url-relative.json", path: "interactions[0].response.url", line: 6, column: 43,
            says: "expected an absolute URL like \"https://api.example.com/path\", found \"/get\" (no scheme)"),
        .init(
            file: "relative-url.json", path: "interactions[0].request.url", line: 5, column: 44,
            says: "expected an absolute URL like \"https://api.example.com/path\", found \"/users/42\" (no scheme)"),
        .init(
            file: "url-with-space.json", path: "interactions[0].request.url", line: 5, column: 44,
            says: "the URL contains a space at character 12; write it as %20"),
        .init(
            file: "url-without-host.json", path: "interactions[0].request.url", line: 5, column: 44,
            says: "the URL \"https:///users\" has no host"),
        .init(
            file: "url-bad-percent-escape.json", path: "interactions[0].request.url", line: 5, column: 44,
            says: "invalid percent escape at character 19"),
        .init(
            file: "negative-timing.json", path: "interactions[0].timing.firstByte", line: 7, column: 32,
            says: "expected a number of seconds, zero or more, found -0.5"),
        .init(
            file: "timing-duration-before-first-byte.json", path: "interactions[0].timing", line: 7, column: 17,
            says: "duration (1) cannot be less than firstByte (2)"),
        .init(
            file: "metadata-reserved-key.json", path: "metadata.cassetteVersion", line: 3, column: 45,
            says: "metadata key \"cassetteVersion\" is reserved: keys starting with \"cassette\" or \"$\" are Cassette's own; rename it"),
        .init(
            file: "metadata-not-object.json", path: "metadata", line: 3, column: 15,
            says: "expected the cassette's metadata as an object like { \"apiVersion\": \"2026-10-01\" }, found an array"),
        .init(
            file: "envelope-cut-before-the-last.json", path: "interactions[0].response.body.envelopes[0]", line: 9, column: 33,
            says: "\"cut\" stands alone, in the last envelope: the bytes of a stream cut short"),
        .init(
            file: "stream-at-goes-backwards.json", path: "interactions[0].response.stream.events[1].at", line: 9, column: 71,
            says: "this chunk arrives at 0.2 s, before the one above it (0.5 s)"),
        .init(
            file: "timing-missing-duration.json", path: "interactions[0].timing", line: 7, column: 17,
            says: "missing required field \"duration\" (expected a number of seconds)"),
        .init(
            file: "invalid-base64.json", path: "interactions[0].response.body.base64", line: 6, column: 56,
            says: "invalid base64: '*' at character 6"),
        .init(
            file: "base64-without-padding.json", path: "interactions[0].response.body.base64", line: 6, column: 56,
            says: "its length (7) is not a multiple of 4; is '=' padding missing?"),
        .init(
            file: "body-in-two-forms.json", path: "interactions[0].response.body", line: 6, column: 44,
            says: "a body is written in exactly one form; found \"text\" and \"base64\""),
        .init(
            file: "body-file-form.json", path: "interactions[0].response.body.file", line: 6, column: 46,
            says: "body files (\"file\") are not supported yet"),
        .init(file: "body-empty-object.json", path: "interactions[0].response.body", line: 6, column: 44, says: "found an empty object"),
        .init(
            file: "header-value-number.json", path: "interactions[0].response.headers[\"Content-Length\"]", line: 6, column: 67,
            says: "expected a header value (a string) or an array of values, found 463"),
        .init(
            file: "header-name-with-space.json", path: "interactions[0].request.headers[\"Content Type\"]", line: 5, column: 79,
            says: "\"Content Type\" is not a valid header name"),
        .init(
            file: "header-repeated-in-other-case.json", path: "interactions[0].response.headers[\"set-cookie\"]", line: 6, column: 70,
            says: "header \"set-cookie\" repeats \"Set-Cookie\" (names ignore case)"),
        .init(
            file: "header-value-line-break.json", path: "interactions[0].response.headers[\"X-Note\"]", line: 6, column: 59,
            says: "contains a line break or NUL"),
        .init(
            file: "error-unknown-code.json", path: "interactions[0].error.code", line: 6, column: 26,
            says:
                "unknown error code \"timedOt\" (did you mean \"timedOut\"?); expected a URLError.Code name or number. Names: unknown, cancelled, badURL, timedOut,"
        ),
        .init(file: "error-code-wrong-type.json", path: "interactions[0].error.code", line: 6, column: 26, says: "found true"),
        .init(
            file: "error-after-bytes-without-response.json", path: "interactions[0].error.afterBytes", line: 6, column: 65,
            says:
                "afterBytes counts bytes of the response body, but this interaction has no \"response\"; remove afterBytes or add a response"
        ),
        .init(
            file: "error-after-bytes-beyond-body.json", path: "interactions[0].error.afterBytes", line: 7, column: 65,
            says: "afterBytes (11) is more than the response body holds (10 bytes)"),
        .init(
            file: "latency-unknown-name.json", path: "interactions[0].latency", line: 7, column: 18,
            says:
                "unknown latency \"slow\"; expected \"instant\", \"recorded\", or an object like { \"firstByte\": 0.3, \"duration\": 0.6 }, { \"scaled\": 0.5 } or { \"bytesPerSecond\": \"edge\", \"firstByte\": 0.1 }"
        ),
        .init(
            file: "latency-duration-and-speed.json", path: "interactions[0].latency", line: 7, column: 18,
            says: "give \"duration\" or \"bytesPerSecond\", not both: a download speed decides the duration"),
        .init(
            file: "latency-unknown-speed.json", path: "interactions[0].latency.bytesPerSecond", line: 7, column: 38,
            says: "unknown download speed \"4g\"; expected a number of bytes per second or one of gprs, edge, 3g, 3g+, wifi"),
        .init(
            file: "latency-duration-before-first-byte.json", path: "interactions[0].latency", line: 7, column: 18,
            says: "duration (1) cannot be less than firstByte (2)"),
        .init(
            file: "recorded-at-invalid-date.json", path: "interactions[0].recordedAt", line: 5, column: 21,
            says: "\"2026-13-01T00:00:00.000Z\" is not a valid date and time"),
        .init(file: "recorded-at-without-zone.json", path: "interactions[0].recordedAt", line: 5, column: 21, says: "expected a time zone"),
    ]

    @Test func everyFixtureHasAnExpectation() throws {
        let files = Set(Paths.jsonFiles(in: Paths.fixtures.appendingPathComponent("Malformed")).map(\.lastPathComponent))
        let expected = Set(Self.expectations.map(\.file)).union(["several-problems.json"])
        #expect(files == expected)
        #expect(files.count >= 30)
    }

    @Test(arguments: expectations)
    func reportsThePlaceAndTheReason(_ expectation: Expectation) throws {
        let error = try decodeFixture(expectation.file)
        #expect(error.file == "Malformed/" + expectation.file)
        #expect(error.problems.count == 1, "\(error.problems)")
        let problem = try #require(error.problems.first)
        #expect(problem.path?.description == expectation.path)
        #expect(problem.line == expectation.line)
        #expect(problem.column == expectation.column)
        #expect(problem.message.contains(expectation.says), "message was: \(problem.message)")
    }

    @Test func everyProblemInAFileIsReportedInDocumentOrder() throws {
        let error = try decodeFixture("several-problems.json")
        #expect(
            error.problems.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.path?.description ?? "-")" } == [
                "5:44 interactions[0].request.url",
                "6:31 interactions[0].response.status",
                "10:26 interactions[1].error.code",
                "11:32 interactions[1].timing.firstByte",
            ])
        #expect(
            error.description.hasPrefix(
                "Malformed/several-problems.json:5:44: error: interactions[0].request.url: expected an absolute URL like \"https://api.example.com/path\", found \"relative\" (no scheme)\n"
                    + "Malformed/several-problems.json:6:31: error: interactions[0].response.status: expected an HTTP status from 100 to 599, found 0\n"
            ))
    }

    private func decodeFixture(_ name: String) throws -> CassetteFormatError {
        let data = try Data(contentsOf: Paths.fixtures.appendingPathComponent("Malformed").appendingPathComponent(name))
        do {
            let document = try JSONCassetteCodec.decode(data, file: "Malformed/" + name)
            Issue.record("\(name) decoded without error: \(document.interactions.count) interactions")
            return CassetteFormatError(file: nil, problems: [])
        } catch {
            return error
        }
    }
}
