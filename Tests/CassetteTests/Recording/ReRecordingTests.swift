import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording the same traffic again (mode `all`) leaves the cassette byte-identical; a changed
/// response rewrites its interaction and nothing else — what code review of cassettes needs.
@Suite(.timingIsolated) struct ReRecordingTests {
    /// Three answers whose `Date`, `Age` and `X-Request-Id` change every time, and a JSON POST.
    static func record(_ server: LoopbackServer, into file: URL) async throws -> Tape.Report {
        let tape = try Tape(file: file, mode: .all, environment: .tests)
        for name in ["a", "b", "c"] {
            let (_, response) = try await tape.session.data(from: URL(string: server.baseURL + "/volatile/\(name)")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
        var post = URLRequest(url: URL(string: server.baseURL + "/echo")!)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(#"{"title":"Holiday"}"#.utf8)
        _ = try await tape.session.data(for: post)
        return try tape.eject()
    }

    @Test(arguments: ["json", "http", "har"])
    func recordingTheSameTrafficAgainChangesNoByte(format: String) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("again.\(format)")
            let first = try await Self.record(server, into: file)
            #expect(first.saved && first.recorded == 4)
            let written = try Data(contentsOf: file)

            try await Task.sleep(nanoseconds: 20_000_000)  // another recordedAt, another Date
            let second = try await Self.record(server, into: file)
            #expect(second.recorded == 4)
            #expect(!second.saved, "nothing meaningful changed, so the file is not written")
            #expect(try Data(contentsOf: file) == written)
            #expect(server.received.count == 8, "both runs recorded live")
        }
    }

    @Test func aChangedResponseRewritesOnlyItsInteraction() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("changed.json")
            _ = try await Self.record(server, into: file)
            let before = try Data(contentsOf: file)
            let stored = try JSONCassetteCodec.decode(before).interactions

            server.setEdition(2, of: "b")
            let report = try await Self.record(server, into: file)
            #expect(report.saved)
            let after = try Data(contentsOf: file)
            let rewritten = try JSONCassetteCodec.decode(after).interactions
            #expect(rewritten.count == 4)
            #expect(
                rewritten[0] == stored[0] && rewritten[2] == stored[2] && rewritten[3] == stored[3],
                "unchanged interactions keep recordedAt, timing and headers as stored")
            #expect(rewritten[1].response?.body.text == "b, edition 2")
            #expect(rewritten[1].recordedAt != stored[1].recordedAt)

            // In the file, every changed line is inside interaction #2.
            let old = String(decoding: before, as: UTF8.self).components(separatedBy: "\n")
            let new = String(decoding: after, as: UTF8.self).components(separatedBy: "\n")
            #expect(old.count == new.count)
            let start = try #require(old.firstIndex { $0.contains("/volatile/b") })
            let end = try #require(old.firstIndex { $0.contains("/volatile/c") })
            let changed = zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(!changed.isEmpty)
            #expect(
                changed.allSatisfy { $0 > start - 4 && $0 < end - 3 }, "changed lines \(changed), interaction #2 is lines \(start)…\(end)")
        }
    }

    /// Bodies of a megabyte or more are compared where the cassette stores them, not read into
    /// memory beside the new ones (``DeferredBodies``); what is kept and what is rewritten is the
    /// same as for small bodies, to the byte.
    @Test func largeBodiesAreComparedExactlyWhereTheyAreStored() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("large.json")
            let upload = String(repeating: "0123456789abcdef", count: 1 << 17)  // 2 MiB on one line
            var volatile = IgnoredChanges.default
            volatile.timingSeconds = 10  // a loaded machine moves a 3 MB transfer's timing a lot
            func record() async throws -> Tape.Report {
                let tape = try Tape(file: file, mode: .all, options: .init(ignoredChanges: volatile), environment: .tests)
                let (big, _) = try await tape.session.data(from: URL(string: server.baseURL + "/volatile/big/\((3 << 20) + 1)")!)
                #expect(big.count == (3 << 20) + 1)
                var post = URLRequest(url: URL(string: server.baseURL + "/echo")!)
                post.httpMethod = "POST"
                post.setValue("text/plain", forHTTPHeaderField: "Content-Type")
                post.httpBody = Data(upload.utf8)
                _ = try await tape.session.data(for: post)
                _ = try await tape.session.data(from: URL(string: server.baseURL + "/volatile/small")!)
                return try tape.eject()
            }
            #expect(try await record().saved)
            let written = try Data(contentsOf: file)
            let stored = try JSONCassetteCodec.decode(written).interactions
            #expect(stored[0].response?.body.form == .base64 && stored[1].request.body.form == .text)

            try await Task.sleep(nanoseconds: 20_000_000)  // another recordedAt, another Date
            #expect(try await !record().saved, "the same traffic again: the file is not written")
            #expect(try Data(contentsOf: file) == written)

            server.setEdition(2, of: "small")
            #expect(try await record().saved)
            var rewritten = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            #expect(rewritten[0] == stored[0] && rewritten[1] == stored[1], "the large interactions are kept as stored")
            #expect(rewritten[0].response?.body.data == stored[0].response?.body.data && rewritten[0].response?.body.form == .base64)
            #expect(rewritten[1].request.body.data == Data(upload.utf8) && rewritten[1].request.body.form == .text)
            #expect(rewritten[2].response?.body.text == "small, edition 2")

            server.setEdition(2, of: "big")  // the last of 3 MiB of bytes changes
            #expect(try await record().saved)
            rewritten = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            let body = try #require(rewritten[0].response?.body.data)
            #expect(body.count == (3 << 20) + 1 && body.last == 2 && body.dropLast() == stored[0].response?.body.data.dropLast())
            #expect(rewritten[0].recordedAt != stored[0].recordedAt)
            #expect(rewritten[1] == stored[1])
        }
    }

    @Test func whatIsVolatileIsConfigurable() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("strict.json")
            _ = try await Self.record(server, into: file)
            let before = try Data(contentsOf: file)
            let tape = try Tape(file: file, mode: .all, options: .init(ignoredChanges: .none), environment: .tests)
            _ = try await tape.session.data(from: URL(string: server.baseURL + "/volatile/a")!)
            #expect(try tape.eject().saved)
            #expect(try Data(contentsOf: file) != before, "with nothing volatile, a new Date is a change")
        }
    }

    // MARK: The rules

    static func interaction(
        headers: Interaction.Headers = [:], body: String = "{}", firstByte: Double = 0.1, duration: Double = 0.2
    ) -> Interaction {
        Interaction(
            recordedAt: Date(), request: .init(url: "https://e.com/a"),
            response: .init(status: 200, headers: headers, body: .init(text: body)), timing: .init(firstByte: firstByte, duration: duration)
        )
    }

    @Test func datesIdsAndSmallTimingChangesAreVolatileTheRestIsNot() {
        let rules = IgnoredChanges.default
        let stored = Self.interaction(headers: [
            "Date": "Mon, 23 Nov 2026 10:00:00 GMT", "X-Amzn-RequestId": "1", "Cache-Control": "no-cache",
        ])
        func kept(_ recorded: Interaction) -> Bool { rules.isUnchanged(recorded, comparedWith: stored) }
        #expect(
            kept(
                Self.interaction(headers: ["Date": "Tue, 24 Nov 2026 11:00:00 GMT", "X-Amzn-RequestId": "2", "Cache-Control": "no-cache"])))
        #expect(
            kept(
                Self.interaction(
                    headers: ["Date": "x", "X-Amzn-RequestId": "2", "Cache-Control": "no-cache"], firstByte: 0.14, duration: 0.29)))
        #expect(
            kept(
                Self.interaction(
                    headers: ["Date": "x", "X-Amzn-RequestId": "2", "Cache-Control": "no-cache"], firstByte: 0.06, duration: 0.11)),
            "within 50 %")
        #expect(
            !kept(Self.interaction(headers: ["Date": "x", "X-Amzn-RequestId": "2", "Cache-Control": "no-cache"], duration: 0.35)),
            "75 % slower")
        #expect(!kept(Self.interaction(headers: ["Date": "x", "X-Amzn-RequestId": "2", "Cache-Control": "max-age=60"])))
        #expect(!kept(Self.interaction(headers: ["Date": "x", "X-Amzn-RequestId": "2", "Cache-Control": "no-cache"], body: "{\"a\":1}")))
        let tiny = Self.interaction(firstByte: 0.001, duration: 0.002)
        #expect(rules.isUnchanged(Self.interaction(firstByte: 0.04, duration: 0.05), comparedWith: tiny), "within 50 ms")

        let paths = IgnoredChanges.default.addingJSONPaths("meta.generatedAt").addingHeaders("X-Build")
        #expect(
            paths.isUnchanged(
                Self.interaction(headers: ["X-Build": "2"], body: #"{"n":1,"meta":{"generatedAt":2}}"#),
                comparedWith: Self.interaction(headers: ["X-Build": "1"], body: #"{"meta":{"generatedAt":1},"n":1}"#)))
        #expect(
            !paths.isUnchanged(
                Self.interaction(body: #"{"meta":{"generatedAt":2},"n":2}"#),
                comparedWith: Self.interaction(body: #"{"meta":{"generatedAt":1},"n":1}"#)))
    }
}
