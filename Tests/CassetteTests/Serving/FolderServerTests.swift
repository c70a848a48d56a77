import Cassette
import CassetteServer
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server for a whole UI-test run: it serves the cassettes of a folder one at a time, each
/// loaded when its scenario starts, over HTTP (`/__cassette/`) or from Swift.
@Suite struct FolderServerTests {
    static func admin(_ server: TapeServer, _ method: String, _ command: String, _ body: String? = nil) async -> Fetched {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("__cassette/" + command))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        return await Fetch.run(request, on: URLSession(configuration: .ephemeral), style: .async)
    }

    static func object(_ fetched: Fetched) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: fetched.body) as? [String: Any])
    }

    @Test func threeScenariosAgainstOneServer() async throws {
        try await withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let b = CassetteDocument(interactions: [
                Interaction(request: .init(url: scratch.url("/b")), response: .init(status: 200, body: .init(text: "B"))),
                Interaction(request: .init(url: scratch.url("/b2")), response: .init(status: 200, body: .init(text: "B2"))),
            ])
            try JSONCassetteCodec.encode(b).write(to: folder.appendingPathComponent("B.json"))
            let server = try TapeServer(
                folder: folder.path, mode: .once, environment: .tests, options: .init(upstream: URL(string: scratch.server.baseURL)))
            defer { server.stop() }
            let client = URLSession(configuration: .ephemeral)
            defer { client.invalidateAndCancel() }
            let base = server.baseURL.absoluteString

            let early = await Fetch.get(base + "/b", on: client)
            #expect(early.status == 503)
            #expect(early.text.hasSuffix("no cassette is loaded: POST /__cassette/load {\"cassette\": \"NAME\"} first\n"), "\(early.text)")

            // Scenario A: a cassette that does not exist yet records (mode once) from the upstream.
            let loadA = await Self.admin(server, "POST", "load", #"{"cassette": "A"}"#)
            #expect(loadA.status == 200)
            #expect(try Self.object(loadA)["loaded"] as? String == folder.resolvingSymlinksInPath().appendingPathComponent("A.json").path)
            let live = await Fetch.get(base + "/echo?scenario=A", on: client)
            #expect(live.status == 200 && live.text.contains(#""query":"scenario=A""#), "\(live): \(live.text)")

            // Scenario B: A is saved as it is loaded.
            let loadB = await Self.admin(server, "POST", "load", #"{"cassette": "B.json"}"#)
            #expect(loadB.status == 200)
            let previous = try #require(try Self.object(loadB)["previous"] as? [String: Any])
            #expect(previous["recorded"] as? Int == 1 && previous["saved"] as? Bool == true, "\(previous)")
            let savedA = try JSONCassetteCodec.decode(Data(contentsOf: folder.appendingPathComponent("A.json")), file: "A.json")
            #expect(savedA.interactions.map(\.request.url) == [scratch.url("/echo?scenario=A")])
            #expect(await Fetch.get(base + "/b", on: client).text == "B")
            let miss = await Fetch.get(base + "/missing", on: client)
            #expect(miss.status == 500 && miss.headers["X-Cassette-Unmatched"] == "true")

            let report = try Self.object(await Self.admin(server, "GET", "report"))
            #expect(report["replayed"] as? Int == 1)
            #expect(report["recorded"] as? Int == 0)
            #expect(report["unusedInteractions"] as? [String] == ["#2 GET \(scratch.url("/b2"))"])
            let unmatched = try #require(report["unmatched"] as? [[String: Any]])
            #expect(unmatched.map { $0["url"] as? String } == [scratch.url("/missing")])
            #expect((unmatched.first?["report"] as? String)?.hasPrefix("Cassette: no recorded interaction matches GET ") == true)

            // Scenario A again, from Swift: it replays what was recorded; B's report comes back.
            let reportB = try #require(try server.load("A"))
            #expect(reportB.replayed == 1 && reportB.unmatched.count == 1 && reportB.unusedInteractions == ["#2 GET \(scratch.url("/b2"))"])
            scratch.server.stop()
            #expect(await Fetch.get(base + "/echo?scenario=A", on: client).body == live.body)
            #expect(server.report?.replayed == 1)
            let last = try #require(try server.eject())
            #expect(last.replayed == 1 && last.recorded == 0)
            #expect(await Fetch.get(base + "/b", on: client).status == 503)

            // No admin request reached a cassette.
            for name in ["A.json", "B.json"] {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                #expect(!text.contains("__cassette"), "\(name)")
            }
        }
    }

    /// `{"cassettes": [SCENARIO, COMMON]}`: the scenario's recordings answer first; what it has no
    /// recording for comes from the cassette beneath; a request the scenario has, used up, does
    /// not fall through. Only the scenario's unused interactions are reported.
    @Test func aScenarioCassetteLoadedOnTopOfASharedOne() async throws {
        try await withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            for sub in ["Common", "Checkout"] {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            func cassette(_ pairs: [(String, String)]) throws -> Data {
                try JSONCassetteCodec.encode(
                    CassetteDocument(
                        interactions: pairs.map { path, text in
                            Interaction(
                                request: .init(url: "https://api.example" + path), response: .init(status: 200, body: .init(text: text)))
                        }))
            }
            try cassette([("/session", "common session"), ("/config", "common config")])
                .write(to: folder.appendingPathComponent("Common/signed-in.json"))
            try cassette([("/config", "scenario config"), ("/cart", "empty cart")])
                .write(to: folder.appendingPathComponent("Checkout/empty.json"))
            let server = try TapeServer(folder: folder.path, mode: .none, matching: .default.ignoringHost(), environment: .tests)
            defer { server.stop() }
            let client = URLSession(configuration: .ephemeral)
            defer { client.invalidateAndCancel() }
            let base = server.baseURL.absoluteString

            let load = await Self.admin(server, "POST", "load", #"{"cassettes": ["Checkout/empty", "Common/signed-in"]}"#)
            #expect(load.status == 200)
            let loaded = try Self.object(load)
            let resolved = folder.resolvingSymlinksInPath()
            #expect(loaded["loaded"] as? String == resolved.appendingPathComponent("Checkout/empty.json").path)
            #expect(loaded["beneath"] as? [String] == [resolved.appendingPathComponent("Common/signed-in.json").path])
            #expect(await Fetch.get(base + "/config", on: client).text == "scenario config")
            #expect(await Fetch.get(base + "/session", on: client).text == "common session")
            #expect(await Fetch.get(base + "/cart", on: client).text == "empty cart")
            let again = await Fetch.get(base + "/config", on: client)
            #expect(again.status == 500 && again.headers["X-Cassette-Unmatched"] == "true", "the scenario's /config is used up")
            let report = try Self.object(await Self.admin(server, "GET", "report"))
            #expect(report["replayed"] as? Int == 3)
            #expect(report["unusedInteractions"] as? [String] == [], "the common cassette's unused /config is not the scenario's")

            // Wrong bodies and names change nothing.
            let both = await Self.admin(server, "POST", "load", #"{"cassette": "Common/signed-in", "cassettes": ["Checkout/empty"]}"#)
            #expect(both.status == 400)
            #expect(
                try Self.object(both)["error"] as? String
                    == #"the body must be JSON: {"cassette": "NAME"} or {"cassettes": ["NAME", "BENEATH", …]}"#)
            #expect(await Self.admin(server, "POST", "load", #"{"cassettes": []}"#).status == 400)
            #expect(await Self.admin(server, "POST", "load", #"{"cassettes": ["Checkout/empty", "../outside"]}"#).status == 400)
            #expect(await Self.admin(server, "POST", "load", #"{"cassettes": ["Checkout/empty", "Common/nothing"]}"#).status == 409)
            #expect(server.tape?.file.path == resolved.appendingPathComponent("Checkout/empty.json").path)
            #expect(server.report?.replayed == 3)

            // From Swift, with repeats: the scenario's own recording repeats; nothing falls through.
            let repeating = try TapeServer(
                folder: folder.path, mode: .none, matching: .default.ignoringHost(),
                tapeOptions: Tape.Options(allowsRepeatedReplays: true), environment: .tests)
            defer { repeating.stop() }
            try repeating.load("Checkout/empty", beneath: ["Common/signed-in"])
            let repeatingBase = repeating.baseURL.absoluteString
            for _ in 0..<3 { #expect(await Fetch.get(repeatingBase + "/config", on: client).text == "scenario config") }
            #expect(await Fetch.get(repeatingBase + "/session", on: client).text == "common session")
            let ejected = try #require(try repeating.eject())
            #expect(ejected.replayed == 4 && ejected.unusedInteractions == ["#2 GET https://api.example/cart"])
        }
    }

    @Test func theRulesFileIsNeverLoadedAsACassette() async throws {
        try await withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"latency": "instant"}"#.utf8).write(to: folder.appendingPathComponent(TapeRules.fileName))
            let server = try TapeServer(folder: folder.path, mode: .none, environment: .tests)
            defer { server.stop() }
            for name in ["cassette-rules", "cassette-rules.json"] {
                let refused = await Self.admin(server, "POST", "load", #"{"cassette": "\#(name)"}"#)
                #expect(refused.status == 400)
                #expect(
                    try Self.object(refused)["error"] as? String
                        == #""\#(name)" is not a cassette name: cassette-rules.json is the folder's rules file (TapeRules), not a cassette"#
                )
            }
            #expect(server.tape == nil)
        }
    }

    @Test func aNameOutsideTheFolderAndAWrongCommandAreRefusedAndChangeNothing() async throws {
        try await withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let server = try TapeServer(folder: folder.path, mode: .none, environment: .tests)
            defer { server.stop() }
            let escape = await Self.admin(server, "POST", "load", #"{"cassette": "../../etc/passwd"}"#)
            #expect(escape.status == 400)
            #expect(
                try Self.object(escape)["error"] as? String
                    == #""../../etc/passwd" is not a cassette name: use a relative path inside the cassette folder like "Users/fetch", without ".." or a hidden step (a name starting with "."), and without a symbolic link that leads out of the folder"#
            )
            let missing = await Self.admin(server, "POST", "load", #"{"cassette": "nothing"}"#)
            #expect(missing.status == 409)
            #expect(
                (try Self.object(missing)["error"] as? String)?.contains("does not exist and record mode \"none\" never records") == true)
            #expect(await Self.admin(server, "POST", "load", "not json").status == 400)
            #expect(await Self.admin(server, "GET", "load").status == 405)
            #expect(await Self.admin(server, "GET", "rewind").status == 404)
            #expect(await Self.admin(server, "GET", "report").status == 409)
            #expect(server.tape == nil)
        }
    }

    @Test func aServerStartedWithOneTapeReportsButLoadsNothing() async throws {
        try await withScratchTape { scratch in
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [Interaction(request: .init(url: scratch.url("/one")), response: .init(status: 204))])
            ).write(to: scratch.file)
            let tape = try scratch.tape(mode: .none)
            let server = try tape.serve()
            #expect(await Fetch.get(server.baseURL.absoluteString + "/one", on: URLSession(configuration: .ephemeral)).status == 204)
            let report = try Self.object(await Self.admin(server, "GET", "report"))
            #expect(report["replayed"] as? Int == 1 && report["cassette"] as? String == scratch.file.path)
            let load = await Self.admin(server, "POST", "load", #"{"cassette": "other"}"#)
            #expect(load.status == 409)
            #expect((try Self.object(load)["error"] as? String)?.contains("this server serves one tape") == true)
        }
    }

    /// Stopping a folder server saves what the loaded cassette recorded.
    @Test func stoppingAFolderServerSavesTheLoadedCassette() async throws {
        try await withScratchTape { scratch in
            let server = try TapeServer(
                folder: scratch.url.path, mode: .once, environment: .tests, options: .init(upstream: URL(string: scratch.server.baseURL)))
            try server.load("C")
            let live = await Fetch.get(server.baseURL.absoluteString + "/echo?c=1", on: URLSession(configuration: .ephemeral))
            #expect(live.status == 200)
            server.stop()
            let saved = try JSONCassetteCodec.decode(Data(contentsOf: scratch.file("C.json")), file: "C.json")
            #expect(saved.interactions.map(\.request.url) == [scratch.url("/echo?c=1")])
            #expect(server.tape == nil)
        }
    }
}
