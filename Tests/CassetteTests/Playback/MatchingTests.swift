import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct MatchingTests {
    typealias Request = Interaction.Request

    static func json(_ url: String, _ body: String, method: String = "POST") -> Request {
        Request(method: method, url: url, headers: ["Content-Type": "application/json"], body: .init(text: body))
    }

    @Test func methodAndURLWithQueryInAnyOrder() {
        let rules = RequestMatching.default
        #expect(
            rules.matches(Request(url: "https://API.example.com:443/a?x=1&y=2#frag"), Request(url: "https://api.example.com/a?y=2&x=1")))
        #expect(rules.matches(Request(url: "http://example.com"), Request(url: "http://example.com:80/")))
        #expect(
            rules.matches(
                Request(url: "https://e.com/a?q=a%20b"), Request(url: "https://e.com/a?q=a b".replacingOccurrences(of: " ", with: "%20"))))
        #expect(
            !rules.matches(Request(url: "https://e.com/a?x=1&x=2"), Request(url: "https://e.com/a?x=2&x=1")),
            "repeated names keep their order")
        #expect(!rules.matches(Request(method: "POST", url: "https://e.com/a"), Request(url: "https://e.com/a")))
        #expect(rules.matches(Request(method: "get", url: "https://e.com/a"), Request(url: "https://e.com/a")))
        #expect(!rules.matches(Request(url: "https://e.com/a"), Request(url: "https://e.com/A")), "paths are case-sensitive")
        #expect(!rules.matches(Request(url: "https://e.com:8443/a"), Request(url: "https://e.com/a")))
        #expect(!rules.matches(Request(url: "https://e.com/a?x=1"), Request(url: "https://e.com/a")))
    }

    @Test func jsonAndFormBodiesByMeaningOthersByBytes() {
        let rules = RequestMatching.default
        #expect(rules.matches(Self.json("https://e.com", #"{"a":1,"b":[1,2]}"#), Self.json("https://e.com", #"{ "b": [1, 2], "a": 1.0 }"#)))
        #expect(!rules.matches(Self.json("https://e.com", #"{"b":[2,1]}"#), Self.json("https://e.com", #"{"b":[1,2]}"#)))
        #expect(!rules.matches(Self.json("https://e.com", #"{"a":"1"}"#), Self.json("https://e.com", #"{"a":1}"#)))
        let form = { (body: String) in
            Request(
                method: "POST", url: "https://e.com/f", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: .init(text: body))
        }
        #expect(rules.matches(form("b=2&a=hello+world"), form("a=hello%20world&b=2")))
        #expect(!rules.matches(form("a=1"), form("a=2")))
        let text = { (body: String) in
            Request(method: "POST", url: "https://e.com/t", headers: ["Content-Type": "text/plain"], body: .init(text: body))
        }
        #expect(!rules.matches(text("a b"), text("a  b")))
        #expect(rules.matches(text("same"), text("same")))
    }

    @Test func optionsForHeadersQueryParametersAndJSONPaths() {
        let accept = RequestMatching.default.includingHeaders("Accept")
        #expect(
            !accept.matches(
                Request(url: "https://e.com", headers: ["Accept": "text/html"]),
                Request(url: "https://e.com", headers: ["accept": "application/json"])))
        #expect(
            accept.matches(
                Request(url: "https://e.com", headers: ["ACCEPT": "application/json"]),
                Request(url: "https://e.com", headers: ["accept": "application/json"])))
        #expect(
            RequestMatching.default.matches(
                Request(url: "https://e.com", headers: ["Accept": "a"]), Request(url: "https://e.com", headers: ["Accept": "b"])))

        let noNonce = RequestMatching.default.ignoringQueryParameters("nonce", "ts")
        #expect(noNonce.matches(Request(url: "https://e.com/a?id=1&nonce=abc&ts=9"), Request(url: "https://e.com/a?id=1&nonce=xyz")))
        #expect(!noNonce.matches(Request(url: "https://e.com/a?id=1&nonce=abc"), Request(url: "https://e.com/a?id=2&nonce=abc")))

        let noClock = RequestMatching.default.ignoringJSONPaths("meta.requestId", "items[*].at", "$.sent")
        #expect(
            noClock.matches(
                Self.json("https://e.com", #"{"meta":{"requestId":"r1","v":1},"items":[{"id":1,"at":5},{"id":2,"at":6}],"sent":1}"#),
                Self.json("https://e.com", #"{"meta":{"requestId":"r2","v":1},"items":[{"id":1,"at":7},{"id":2}]}"#)))
        #expect(
            !noClock.matches(
                Self.json("https://e.com", #"{"meta":{"requestId":"r1","v":1}}"#),
                Self.json("https://e.com", #"{"meta":{"requestId":"r1","v":2}}"#)))
    }

    @Test func aCustomRuleReplacesTheComparison() {
        let prefix = RequestMatching.custom { live, recorded in
            live.method == recorded.method && live.url.hasPrefix(recorded.url)
        }
        #expect(prefix.matches(Request(url: "https://e.com/search?q=anything"), Request(url: "https://e.com/search")))
        #expect(!prefix.matches(Request(url: "https://e.com/other"), Request(url: "https://e.com/search")))
    }

    /// Identical requests get the recorded answers in order; the next one is unmatched, or
    /// repeats the last with `allowsRepeatedReplays`.
    @Test(arguments: [false, true])
    func identicalRequestsReplayInRecordedOrder(allowsRepeats: Bool) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("poll.json")
            let interactions = ["pending", "running", "done"].map { state in
                Interaction(request: .init(url: "https://jobs.example/1"), response: .init(status: 200, body: .init(text: state)))
            }
            try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: file)
            let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: allowsRepeats), environment: .tests)
            var answers: [String] = []
            for _ in 0..<4 {
                let fetched = await Fetch.get("https://jobs.example/1", on: tape.session)
                answers.append(fetched.errorCode.map { "error \($0.rawValue)" } ?? fetched.text)
            }
            let report = try tape.eject()
            if allowsRepeats {
                #expect(answers == ["pending", "running", "done", "done"])
                #expect(report.unmatched.isEmpty)
            } else {
                #expect(answers == ["pending", "running", "done", "error \(Tape.unmatchedRequestErrorCode.rawValue)"])
                #expect(
                    report.unmatched.map(\.description) == [
                        """
                        Cassette: no recorded interaction matches GET https://jobs.example/1 in cassette \(file.path) (record mode none).
                        Request: GET https://jobs.example/1
                          no body
                        It matches recorded interactions #1, #2, #3, which all already answered earlier requests: each recorded interaction answers once.
                        To fix: if the server answers this request more than once, record it with CASSETTE_RECORD_MODE=newEpisodes on a machine \
                        with network access; to replay the last answer again instead, open the tape with Tape.Options(allowsRepeatedReplays: true).
                        """
                    ])
            }
        }
    }

    /// A custom rule goes through the whole pipeline too.
    @Test func customMatchingOnATape() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("custom.json")
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://e.com/search"), response: .init(status: 200, body: .init(text: "results")))
                ])
            ).write(to: file)
            let tape = try Tape(
                file: file, mode: .none, matching: .custom { live, recorded in live.url.hasPrefix(recorded.url) }, environment: .tests)
            #expect(await Fetch.get("https://e.com/search?q=swift", on: tape.session).text == "results")
            try tape.eject()
        }
    }

    /// A custom rule asks the default comparison for all but the part it loosens, as the type's
    /// documentation shows: searches match whatever their bodies, any other request as by default.
    @Test func aCustomRuleAsksTheDefaultForTheRest() async throws {
        let matching = RequestMatching.custom { live, recorded in
            guard live.url.hasPrefix("https://api.example.com/search") else {
                return RequestMatching.default.matches(live, recorded)
            }
            var sameBody = live
            sameBody.body = recorded.body
            return RequestMatching.default.matches(sameBody, recorded)
        }
        let search = Self.json("https://api.example.com/search", #"{"q":"swift"}"#)
        let order = Self.json("https://api.example.com/orders", #"{"id":1}"#)
        #expect(matching.matches(Self.json("https://api.example.com/search", #"{"q":"rust"}"#), search))
        #expect(!matching.matches(Self.json("https://api.example.com/search?page=2", #"{"q":"swift"}"#), search))
        #expect(!matching.matches(Self.json("https://api.example.com/orders", #"{"id":2}"#), order))
        #expect(matching.matches(Self.json("https://api.example.com/orders", #"{ "id": 1 }"#), order))
        #expect(
            RequestMatching.default.ignoringQueryParameters("page").matches(
                Self.json("https://api.example.com/search?page=2", #"{"q":"swift"}"#), search))

        try await withScratchTape { scratch in
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(request: search, response: .init(status: 200, body: .init(text: "results"))),
                    Interaction(request: order, response: .init(status: 201, body: .init(text: "created"))),
                ])
            ).write(to: scratch.file)
            let tape = try Tape(file: scratch.file, mode: .none, matching: matching, options: Tape.Options().quiet, environment: .tests)
            var other = URLRequest(url: URL(string: "https://api.example.com/search")!)
            other.httpMethod = "POST"
            other.setValue("application/json", forHTTPHeaderField: "Content-Type")
            other.httpBody = Data(#"{"q":"another"}"#.utf8)
            #expect(await Fetch.run(other, on: tape.session, style: .async).text == "results")
            var changedOrder = URLRequest(url: URL(string: "https://api.example.com/orders")!)
            changedOrder.httpMethod = "POST"
            changedOrder.setValue("application/json", forHTTPHeaderField: "Content-Type")
            changedOrder.httpBody = Data(#"{"id":2}"#.utf8)
            #expect(await Fetch.run(changedOrder, on: tape.session, style: .async).errorCode == .resourceUnavailable)
            #expect(try tape.eject().unmatched.map(\.request.url) == ["https://api.example.com/orders"])
        }
    }
}
