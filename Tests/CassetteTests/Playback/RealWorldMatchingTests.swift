import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Traffic as real clients make it: multipart uploads with a new random boundary on every run,
/// and servers that listen on another port (or host) than the one recorded.
@Suite(.timingIsolated) struct RealWorldMatchingTests {
    typealias Request = Interaction.Request

    /// A multipart body as Alamofire builds one: a boundary drawn at random, parts in the order given.
    static func multipart(
        boundary: String = "alamofire.boundary.\(UUID().uuidString.prefix(16))", title: String = "Holiday",
        reversed: Bool = false
    ) -> (body: Data, contentType: String) {
        var parts = [
            "Content-Disposition: form-data; name=\"title\"\r\n\r\n\(title)",
            "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"year\":2026,\"tags\":[\"sea\"]}",
            "Content-Disposition: form-data; name=\"photo\"; filename=\"beach.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}PNG",
        ]
        if reversed { parts.reverse() }
        var body = Data()
        for part in parts { body += Data("--\(boundary)\r\n\(part)\r\n".utf8) }
        body += Data("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    static func upload(_ server: LoopbackServer, _ form: (body: Data, contentType: String)) -> URLRequest {
        var request = URLRequest(url: URL(string: server.baseURL + "/echo")!)
        request.httpMethod = "POST"
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = form.body
        return request
    }

    // MARK: Multipart

    @Test(arguments: FetchStyle.allCases)
    func aMultipartUploadRecordedWithOneBoundaryReplaysWithAnother(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("upload.json")
            let recordedForm = Self.multipart()

            let live = await Fetch.run(Self.upload(server, recordedForm), on: try Self.session(style), style: style)
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = await Fetch.run(Self.upload(server, recordedForm), on: try Self.session(style, tape: recorder), style: style)
            try recorder.eject()
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")
            #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains(#"{ "name": "title", "text": "Holiday" }"#))

            let before = server.received.count
            for form in [Self.multipart(), Self.multipart(reversed: true)] {
                let player = try Tape(file: file, mode: .none, environment: .tests)
                let replayed = await Fetch.run(Self.upload(server, form), on: try Self.session(style, tape: player), style: style)
                let report = try player.eject()
                #expect(report.replayed == 1 && report.unmatched.isEmpty, "\(report.unmatched.map(\.description))")
                #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
                #expect(replayed.body == live.body)
            }
            #expect(server.received.count == before, "a replay must not reach the server")
        }
    }

    @Test func anUploadFromAFileMatchesTheRecordingWithANewBoundary() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("upload.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let first = Self.multipart()
            _ = try await recorder.session.data(for: Self.upload(server, first))
            try recorder.eject()

            let second = Self.multipart(reversed: true)
            let bodyFile = scratch.file("form.bin")
            try second.body.write(to: bodyFile)
            var request = Self.upload(server, second)
            request.httpBody = nil
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let (data, response) = try await player.session.upload(for: request, fromFile: bodyFile)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let echoed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(
                echoed["body"] as? String == String(decoding: first.body, as: UTF8.self), "the recorded echo, with the recorded boundary")
            #expect(try player.eject().replayed == 1)
        }
    }

    @Test func aChangedPartMissesAndTheReportNamesIt() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("upload.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            _ = try await recorder.session.data(for: Self.upload(server, Self.multipart()))
            try recorder.eject()

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let missed = await Fetch.run(Self.upload(server, Self.multipart(title: "Winter")), on: player.session, style: .async)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let unmatched = try #require(try player.eject().unmatched.first)
            #expect(
                unmatched.candidates.first?.differences == [
                    RequestDifference(field: .multipartPart("title"), recorded: #""Holiday" (7 bytes)"#, requested: #""Winter" (6 bytes)"#)
                ])
            #expect(
                unmatched.description.contains(
                    #"    - multipart part "title": recorded "Holiday" (7 bytes), requested "Winter" (6 bytes)"#),
                "\(unmatched.description)")
        }
    }

    @Test func partOrderCountsWhenAsked() {
        let strict = RequestMatching.default.comparingMultipartPartOrder()
        let a = Self.multipart()
        let b = Self.multipart(reversed: true)
        let live = Request(
            method: "POST", url: "http://h/u", headers: ["Content-Type": b.contentType], body: .init(b.body, contentType: b.contentType))
        let recorded = Request(
            method: "POST", url: "http://h/u", headers: ["Content-Type": a.contentType], body: .init(a.body, contentType: a.contentType))
        #expect(RequestMatching.default.matches(live, recorded))
        #expect(!strict.matches(live, recorded))
        let c = Self.multipart()
        #expect(
            strict.matches(
                Request(method: "POST", url: "http://h/u", headers: ["Content-Type": c.contentType], body: .init(c.body)), recorded))
        // Content-Type, when matched, is compared without its boundary.
        #expect(RequestMatching.default.includingHeaders("Content-Type").matches(live, recorded))
    }

    @Test func aBodyThatIsNotMultipartIsComparedByBytesAndTheReportSaysWhy() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("broken.json")
            let recordedBody = "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nnever closed"
            try CassetteDocument(interactions: [
                Interaction(
                    request: Request(
                        method: "POST", url: "http://127.0.0.1:9/u", headers: ["Content-Type": "multipart/form-data; boundary=x"],
                        body: .init(text: recordedBody)),
                    response: .init(status: 201))
            ]).jsonData().write(to: file)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            var request = URLRequest(url: URL(string: "http://127.0.0.1:9/u")!)
            request.httpMethod = "POST"
            request.setValue("multipart/form-data; boundary=x", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(recordedBody.utf8)
            #expect(await Fetch.run(request, on: tape.session, style: .async).status == 201, "the same bytes still match")
            request.httpBody = Data((recordedBody + "!").utf8)
            #expect(await Fetch.run(request, on: tape.session, style: .async).errorCode == Tape.unmatchedRequestErrorCode)
            let report = try #require(try tape.eject().unmatched.first).description
            #expect(
                report.contains(
                    "Note: the request's body says multipart/form-data but is not valid multipart (part 1 is not closed: no \"--x\" after it), so it is compared byte for byte."
                ), "\(report)")
        }
    }

    // MARK: Hosts and ports

    @Test(arguments: FetchStyle.allCases)
    func aCassetteRecordedOnOnePortReplaysOnAnotherWithTheOption(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("port.json")
            let first = try LoopbackServer()
            let live = await Fetch.get(first.baseURL + "/echo?q=1", on: try Self.session(style), style: style)
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = await Fetch.get(first.baseURL + "/echo?q=1", on: try Self.session(style, tape: recorder), style: style)
            try recorder.eject()
            // Another free port: started while the first still listens, so the system cannot hand
            // the first one out again (it did, once in a full run).
            let second = try LoopbackServer()
            defer { second.stop() }
            first.stop()
            #expect(recorded.sameOutcome(as: live))

            #expect(second.port != first.port)
            let player = try Tape(file: file, mode: .none, matching: .default.ignoringPort(), environment: .tests)
            let replayed = await Fetch.get(second.baseURL + "/echo?q=1", on: try Self.session(style, tape: player), style: style)
            #expect(try player.eject().replayed == 1)
            #expect(replayed.status == live.status && replayed.body == live.body && replayed.headers == live.headers)
            #expect(second.received.isEmpty)

            let strict = try Tape(file: file, mode: .none, environment: .tests)
            let missed = await Fetch.get(second.baseURL + "/echo?q=1", on: try Self.session(style, tape: strict), style: style)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let report = try #require(try strict.eject().unmatched.first).description
            #expect(
                report.contains(
                    "- scheme, host and port: recorded http://127.0.0.1:\(first.port), requested http://127.0.0.1:\(second.port)"),
                "\(report)")
            #expect(
                report.contains(
                    "To fix: if the server may listen on another port (a test server on a random port), add .ignoringPort() to the cassette's matching"
                ), "\(report)")
        }
    }

    @Test func ignoringTheHostReplaysForAnotherServerAndTheReportSuggestsIt() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("host.json")
            try CassetteDocument(interactions: [
                Interaction(
                    request: Request(url: "https://staging.example.com:8443/v1/items?page=2"),
                    response: .init(status: 200, body: .init(text: "items")))
            ]).jsonData().write(to: file)
            let tape = try Tape(file: file, mode: .none, matching: .default.ignoringHost(), environment: .tests)
            let replayed = await Fetch.get("http://127.0.0.1:1/v1/items?page=2", on: tape.session)
            #expect(replayed.status == 200 && replayed.text == "items")
            let other = await Fetch.get("http://127.0.0.1:1/v1/items?page=3", on: tape.session)
            #expect(other.errorCode == Tape.unmatchedRequestErrorCode)
            _ = try tape.eject()

            let strict = try Tape(file: file, mode: .none, environment: .tests)
            _ = await Fetch.get("https://api.example.com/v1/items?page=2", on: strict.session)
            let report = try #require(try strict.eject().unmatched.first).description
            #expect(
                report.contains(
                    "To fix: if the same requests go to another server (staging, a local one), add .ignoringHost() to the cassette's matching"
                ), "\(report)")
        }
    }

    /// A redirect recorded with an absolute `Location` on the recorded port is followed to the
    /// server the test talks to now, and the caller sees that server's URL, as live.
    @Test(arguments: FetchStyle.allCases)
    func aRecordedRedirectLeadsToTheLiveOrigin(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("moved.json")
            try CassetteDocument(interactions: [
                Interaction(
                    request: Request(url: "http://127.0.0.1:53124/old"),
                    response: .init(status: 302, headers: ["Location": "http://127.0.0.1:53124/new?from=old"])),
                Interaction(
                    request: Request(url: "http://127.0.0.1:53124/new?from=old"), response: .init(status: 200, body: .init(text: "moved"))),
            ]).jsonData().write(to: file)
            let tape = try Tape(file: file, mode: .none, matching: .default.ignoringPort(), environment: .tests)
            let fetched = await Fetch.get("http://127.0.0.1:1/old", on: try Self.session(style, tape: tape), style: style)
            #expect(fetched.status == 200 && fetched.text == "moved", "\(fetched)")
            #expect(fetched.url == "http://127.0.0.1:1/new?from=old")
            #expect(try tape.eject().replayed == 2)
        }
    }

    @Test func portAndHostRulesCompareWhatTheySay() {
        let port = RequestMatching.default.ignoringPort()
        #expect(port.matches(Request(url: "http://127.0.0.1:60001/a?x=1"), Request(url: "http://127.0.0.1:53124/a?x=1")))
        #expect(port.matches(Request(url: "https://e.com/a"), Request(url: "https://e.com:8443/a")))
        #expect(port.matches(Request(url: "http://[::1]:1/a"), Request(url: "http://[::1]:2/a")))
        #expect(!port.matches(Request(url: "http://localhost:1/a"), Request(url: "http://127.0.0.1:1/a")), "the host still counts")
        #expect(!port.matches(Request(url: "https://e.com:1/a"), Request(url: "http://e.com:1/a")), "the scheme still counts")
        let host = RequestMatching.default.ignoringHost()
        #expect(host.matches(Request(url: "http://localhost:1/a?x=1"), Request(url: "https://api.example.com/a?x=1")))
        #expect(!host.matches(Request(url: "http://localhost:1/a?x=1"), Request(url: "https://api.example.com/b?x=1")))
        #expect(host.ignoringPort().origin == .any, "ignoring the port does not narrow ignoring the host")
    }

    static func session(_ style: FetchStyle, tape: Tape? = nil) throws -> URLSession {
        style == .delegate
            ? Fetch.delegateSession { configuration in tape?.configure(configuration) }
            : tape?.session ?? URLSession(configuration: .ephemeral)
    }
}

extension CassetteDocument {
    /// The document as a JSON cassette file's bytes.
    func jsonData() throws -> Data { try JSONCassetteCodec.encode(self) }
}
