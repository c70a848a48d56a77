import Cassette
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette diff`: what re-recording changed, paired by request, JSON by structure.
@Suite struct DiffCommandTests {
    static func interaction(
        _ path: String, status: Int = 200, json: String, headers: [(String, String)] = [], timing: Double = 0.1
    ) -> Interaction {
        var fields = Interaction.Headers([("Content-Type", "application/json")] + headers.map { (name: $0.0, value: $0.1) })
        fields.add("Date", "Wed, 18 Nov 2026 08:26:\(Int.random(in: 10...59)) GMT")
        var interaction = Interaction(
            request: .init(url: "https://api.example.com" + path),
            response: .init(status: status, headers: fields, body: .init(Data(json.utf8), contentType: "application/json")))
        interaction.timing = .init(firstByte: timing / 2, duration: timing)
        return interaction
    }

    static func write(_ interactions: [Interaction], to url: URL) throws {
        try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: url)
    }

    /// A re-recording where the server changed one field and wrote the others in another order,
    /// with new dates and slightly different timing, in another interaction order: one change at
    /// its JSON path; and a body whose JSON is the same but written with spaces is a change of the
    /// bytes the client gets (re-recording writes it), said as such.
    @Test func oneChangedFieldAmongReorderedKeysIsTheOneChange() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let old = scratch.appendingPathComponent("old.json")
        let new = scratch.appendingPathComponent("new.json")
        try Self.write(
            [
                Self.interaction("/feed", json: #"{"items":[1,2,3]}"#),
                Self.interaction("/users/42", json: #"{"id":42,"name":"Ada","email":"ada@example.com","plan":"free"}"#),
            ], to: old)
        try Self.write(
            [
                Self.interaction("/users/42", json: #"{"plan":"pro","email":"ada@example.com","name":"Ada","id":42}"#, timing: 0.12),
                Self.interaction("/feed", json: #"{ "items": [1, 2, 3] }"#, timing: 0.09),
            ], to: new)
        let result = Captured.run(["diff", old.path, new.path])
        #expect(result.status == 1)
        #expect(
            result.out == """
                changed  interactions[0] → [1]  GET https://api.example.com/feed
                    response.body: 17 bytes → 22 bytes, the same JSON written otherwise
                changed  interactions[1] → [0]  GET https://api.example.com/users/42
                    response.body.$.plan: "free" → "pro"
                2 changed, 0 added, 0 removed, 0 unchanged

                """)
        #expect(result.error == "")
    }

    /// The same content in two formats is no change.
    @Test(arguments: ["users-api.json", "faults.json", "avatar-image.json"])
    func theSameCassetteInAnotherFormatIsNoChange(example: String) throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = Locations.examples + "/" + example
        let har = scratch.appendingPathComponent("same.har").path
        #expect(Captured.run(["convert", original, har]).status == 0)
        let result = Captured.run(["diff", original, har])
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.hasPrefix("0 changed, 0 added, 0 removed, "))
    }

    @Test func addedRemovedTypeStatusAndHeaderChangesAsTextAndJSON() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let old = scratch.appendingPathComponent("old.json")
        let new = scratch.appendingPathComponent("new.har")
        try Self.write(
            [
                Self.interaction("/user", json: #"{"id":42,"user":{"email":"a@example.com"}}"#, headers: [("Cache-Control", "max-age=60")]),
                Self.interaction("/gone", json: "{}"),
            ], to: old)
        let document = CassetteDocument(interactions: [
            Self.interaction("/user", status: 503, json: #"{"id":"42","user":{},"retry":true}"#, headers: [("Cache-Control", "no-store")]),
            Self.interaction("/new", json: "[]"),
        ])
        try HARCassetteCodec.encode(document).write(to: new)
        let text = Captured.run(["diff", old.path, new.path])
        #expect(text.status == 1)
        #expect(
            text.out == """
                changed  interactions[0]  GET https://api.example.com/user
                    response.status: 200 → 503
                    response.headers.Cache-Control: max-age=60 → no-store
                    response.body.$.id: a number 42 → a string "42"
                    response.body.$.user.email: removed (was "a@example.com")
                    response.body.$.retry: added (true)
                added    interactions[1]  GET https://api.example.com/new
                removed  interactions[1]  GET https://api.example.com/gone
                1 changed, 1 added, 1 removed, 0 unchanged

                """)
        let json = Captured.run(["diff", "--json", old.path, new.path])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect((object["added"] as? [[String: Any]])?.first?["request"] as? String == "GET https://api.example.com/new")
        #expect((object["removed"] as? [[String: Any]])?.first?["index"] as? Int == 1)
        let changes = try #require(((object["changed"] as? [[String: Any]])?.first)?["changes"] as? [[String: Any]])
        #expect(
            changes.map { $0["field"] as? String } == [
                "response.status", "response.headers.Cache-Control", "response.body.$.id", "response.body.$.user.email",
                "response.body.$.retry",
            ])
        #expect(changes[3]["new"] is NSNull && changes[3]["old"] as? String == #""a@example.com""#)
        #expect(json.out.contains("https://api.example.com/new"), "slashes are not escaped")
    }

    @Test func aMalformedCassetteGetsLintsLocatedError() throws {
        let malformed = Locations.malformed + "/comment.json"
        let lint = Captured.run(["lint", malformed])
        let diff = Captured.run(["diff", Locations.examples + "/users-api.json", malformed])
        #expect(diff.status == 3)
        let located = diff.error.trimmingCharacters(in: .newlines)
        #expect(located == malformed + ":1:1: error: expected a value, found '/'")
        #expect((lint.out + lint.error).contains(located), "\(located) vs \(lint.out)\(lint.error)")
    }

    @Test func wrongCommandLines() {
        #expect(Captured.run(["diff", "only-one.json"]).status == 2)
        #expect(Captured.run(["diff", "--git", "HEAD", "a.json", "b.json"]).status == 2)
        let wrong = Captured.run(["diff", "--match-ignoring", "path", "a.json", "b.json"])
        #expect(wrong.status == 2 && wrong.error.contains("--match-ignoring takes port or host, not 'path'"))
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// `--git REV FILE`: the committed cassette against the file as it is.
    @Test func againstTheCommittedVersion() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        func git(_ arguments: String...) throws {
            let result = try SpawnedProcess.run(
                executable: "/usr/bin/env", ["git", "-C", scratch.path, "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments)
            #expect(result.status == 0, "git \(arguments): \(String(decoding: result.errors, as: UTF8.self))")
        }
        let file = scratch.appendingPathComponent("feed.json")
        try Self.write([Self.interaction("/feed", json: #"{"count":1}"#)], to: file)
        try git("init", "-q")
        try git("add", "feed.json")
        try git("commit", "-q", "-m", "recorded")
        #expect(Captured.run(["diff", "--git", "HEAD", file.path]).status == 0)
        try Self.write([Self.interaction("/feed", json: #"{"count":2}"#)], to: file)
        let result = Captured.run(["diff", "--git", "HEAD", file.path])
        #expect(result.status == 1)
        #expect(result.out.contains("    response.body.$.count: 1 → 2\n"))
        let missing = Captured.run(["diff", "--git", "no-such-revision", file.path])
        #expect(missing.status == 3 && missing.error.contains("no-such-revision:\(file.path)"), "\(missing.error)")
    }
    #endif
}
