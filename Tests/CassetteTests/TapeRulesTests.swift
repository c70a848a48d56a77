import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules file: what it sets, and a mistake named by file, line, column and member.
@Suite struct TapeRulesTests {
    static func rules(_ text: String) throws -> TapeRules {
        try withScratchTape { scratch in
            try Data(text.utf8).write(to: scratch.file(TapeRules.fileName))
            return try #require(try TapeRules.inFolder(scratch.url))
        }
    }

    static func mistake(_ text: String) throws -> String {
        try withScratchTape { scratch in
            let file = scratch.file(TapeRules.fileName)
            try Data(text.utf8).write(to: file)
            do {
                _ = try TapeRules(contentsOf: file)
                return "no error"
            } catch let error as CassetteFormatError {
                return error.description.replacingOccurrences(of: file.path, with: "FILE")
            }
        }
    }

    @Test func everyMemberSetsWhatItNames() throws {
        let rules = try Self.rules(
            """
            {
              "matching": {
                "ignoringQueryParameters": ["cb"], "includingHeaders": ["Accept"], "ignoringJSONPaths": ["requestId"],
                "ignoring": "port", "comparingMultipartPartOrder": true
              },
              "redaction": { "defaults": false, "headers": ["X-Api-Key"], "queryParameters": ["token"], "jsonKeys": ["password"],
                             "jsonPaths": ["user.ssn"], "formFields": ["pin"], "bodyPatterns": ["sk_[a-z]+"] },
              "latency": "fixed:0.1,0.2",
              "allowsRepeatedReplays": true
            }
            """)
        #expect(rules.matching.ignoredQueryParameters == ["cb"])
        #expect(rules.matching.headers == ["Accept"])
        #expect(rules.matching.ignoredJSONPaths == ["requestId"])
        #expect(rules.matching.origin == .anyPort)
        #expect(rules.matching.comparesMultipartPartOrder)
        let redaction = try #require(rules.redaction)
        #expect(redaction.headers == ["X-Api-Key"] && redaction.queryParameters == ["token"] && redaction.jsonKeys == ["password"])
        #expect(redaction.jsonPaths == ["user.ssn"] && redaction.formFields == ["pin"] && redaction.bodyPatterns == ["sk_[a-z]+"])
        #expect(rules.latency == .fixed(firstByte: 0.1, duration: 0.2))
        let options = rules.applying(to: Tape.Options())
        #expect(options.allowsRepeatedReplays && options.latency == .fixed(firstByte: 0.1, duration: 0.2))
        #expect(options.redaction.headers == ["X-Api-Key"])
        // Redaction adds to the defaults unless told not to; nothing given changes nothing.
        #expect(
            try Self.rules(#"{"redaction": {"headers": ["X-Api-Key"]}}"#).redaction?.headers == Redaction.default.headers + ["X-Api-Key"])
        let empty = try Self.rules("{}")
        #expect(empty.redaction == nil && empty.latency == nil && empty.allowsRepeatedReplays == nil)
        #expect(empty.applying(to: Tape.Options(allowsRepeatedReplays: true)).allowsRepeatedReplays)
    }

    @Test func ignoredRequestsAreRules() throws {
        let rules = try Self.rules(#"{"ignore": {"hosts": ["telemetry.example.com"], "localhost": true, "ports": [9229, 8080]}}"#)
        let ignored = try #require(rules.ignoredRequests)
        #expect(ignored.hosts == ["telemetry.example.com"])
        #expect(ignored.localhost)
        #expect(ignored.ports == [9229, 8080])
        let options = rules.applying(to: Tape.Options())
        #expect(options.ignoredRequests.hosts == ["telemetry.example.com"] && options.ignoredRequests.localhost)
        #expect(try Self.rules("{}").applying(to: Tape.Options()).ignoredRequests.isEmpty)
        #expect(
            try Self.mistake(#"{"ignore": {"host": ["a.example"]}}"#)
                == #"FILE:1:13: error: ignore.host: unknown rule "host" (did you mean "hosts"?); expected one of "hosts", "localhost", "ports""#
        )
        #expect(
            try Self.mistake(#"{"ignore": {"ports": [80, 70000]}}"#)
                == "FILE:1:27: error: ignore.ports[1]: a port is from 1 to 65535, found 70000")
        #expect(
            try Self.mistake(#"{"ignore": {"ports": 80}}"#)
                == "FILE:1:22: error: ignore.ports: expected an array of port numbers like [8080], found the number 80")
        #expect(
            try Self.mistake(#"{"ignore": ["localhost"]}"#).hasPrefix(
                #"FILE:1:12: error: ignore: expected an object like { "hosts": ["telemetry.example.com"], "localhost": true }"#))
    }

    @Test func noFileIsNoRules() throws {
        try withScratchTape { scratch in
            let found = try TapeRules.inFolder(scratch.url)
            #expect(found == nil)
        }
    }

    @Test func aMistakeIsNamedByItsPlace() throws {
        #expect(
            try Self.mistake(#"{"matching": {"ignoringQuery": ["cb"]}}"#)
                == #"FILE:1:15: error: matching.ignoringQuery: unknown member "ignoringQuery"; expected one of "ignoringQueryParameters", "#
                + #""includingHeaders", "ignoringJSONPaths", "ignoring", "comparingMultipartPartOrder""#)
        #expect(
            try Self.mistake("{\n  \"matching\": {\"includingHeaders\": [\"Accept\", 7]}\n}")
                == "FILE:2:47: error: matching.includingHeaders[1]: expected a string, found the number 7")
        #expect(
            try Self.mistake(#"{"latency": "slow"}"#).hasPrefix(#"FILE:1:13: error: latency: expected a latency (instant, recorded, "#))
        #expect(
            try Self.mistake(#"{"matching": {"ignoring": "path"}}"#)
                == #"FILE:1:27: error: matching.ignoring: expected "port" or "host", found "path""#)
        #expect(
            try Self.mistake(#"{"allowsRepeatedReplays": "yes"}"#)
                == #"FILE:1:27: error: allowsRepeatedReplays: expected true or false, found a string"#)
        #expect(
            try Self.mistake(#"{"latency": "recorded",}"#)
                == "FILE:1:24: error: expected a key in double quotes, found '}' (JSON does not allow a comma before '}')")
        #expect(try Self.mistake("[]") == "FILE:1:1: error: $: expected an object, found an array")
        // A body pattern that is not a regular expression is refused when the file is read (by
        // lint, a tape and serve alike), at its place — it was refused only at the first request.
        #expect(
            try Self.mistake("{\n  \"redaction\": {\"bodyPatterns\": [\"ok[0-9]+\", \"(unclosed\"]}\n}")
                .hasPrefix(#"FILE:2:46: error: redaction.bodyPatterns[1]: "(unclosed" is not a regular expression ("#))
    }
}
