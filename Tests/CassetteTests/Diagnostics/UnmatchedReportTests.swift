import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The exact text of the unmatched-request report (docs/Architecture.md, "When a request has no match") in each situation a developer
/// meets. `FILE` stands for the cassette's path.
@Suite struct UnmatchedReportTests {
    static let cassette = """
        {
          "version": 1,
          "interactions": [
            {
              "request": { "method": "GET", "url": "https://api.example.com/users?page=1&per_page=20", "headers": { "Accept": "application/json" } },
              "response": { "status": 200, "body": { "json": [] } }
            },
            {
              "request": {
                "method": "POST", "url": "https://api.example.com/users",
                "headers": { "Accept": "application/json", "Content-Type": "application/json" },
                "body": { "json": { "user": { "name": "Ada", "roles": ["admin"] }, "notify": true } }
              },
              "response": { "status": 201 }
            },
            {
              "request": { "method": "DELETE", "url": "https://api.example.com/users/42", "headers": { "Accept": "application/json" } },
              "response": { "status": 204 }
            },
            {
              "request": {
                "method": "POST", "url": "https://api.example.com/login",
                "headers": { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
                "body": "user=ada&remember=1"
              },
              "response": { "status": 200 }
            }
          ]
        }
        """

    /// What the caller's `URLError` says for each request in `requests`, in order (`nil` for a
    /// request that was answered), from a tape in mode `none` on `cassette`.
    static func reports(cassette: String = cassette, _ requests: [URLRequest]) async throws -> [String?] {
        try await withScratchTape { scratch in
            let file = scratch.file("users.json")
            try Data(cassette.utf8).write(to: file)
            let tape = try Tape(file: file, mode: .none, matching: .default.includingHeaders("Accept"), environment: .tests)
            var reports: [String?] = []
            for request in requests {
                let fetched = await Fetch.run(request, on: tape.session, style: .async)
                if let description = fetched.errorDescription {
                    #expect(fetched.errorCode == Tape.unmatchedRequestErrorCode)
                    reports.append(description.replacingOccurrences(of: file.path, with: "FILE"))
                } else {
                    reports.append(nil)
                }
            }
            let report = try tape.eject()
            #expect(report.unmatched.map { $0.description.replacingOccurrences(of: file.path, with: "FILE") } == reports.compactMap { $0 })
            return reports
        }
    }

    static func request(
        _ method: String, _ url: String, headers: [String: String] = ["Accept": "application/json"], json: String? = nil
    ) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        return request
    }

    @Test func wrongMethod() async throws {
        let text = try await Self.reports([Self.request("PUT", "https://api.example.com/users/42")])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches PUT https://api.example.com/users/42 in cassette FILE (record mode none).
                Request: PUT https://api.example.com/users/42
                  Accept: application/json
                  no body
                The closest of its 4 recorded interactions:
                  #3 DELETE https://api.example.com/users/42
                    - method: recorded DELETE, requested PUT
                To fix: if the request is new, record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access; if the \
                code under test should have sent the recorded request, check what it builds.
                """
            ])
    }

    /// Also: the request's token is redacted in the report.
    @Test func oneChangedQueryValue() async throws {
        let text = try await Self.reports([
            Self.request(
                "GET", "https://api.example.com/users?per_page=20&page=2",
                headers: ["Accept": "application/json", "Authorization": "Bearer golden-secret-token"])
        ])
        #expect(text[0]?.contains("golden-secret-token") == false)
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches GET https://api.example.com/users?per_page=20&page=2 in cassette FILE (record \
                mode none).
                Request: GET https://api.example.com/users?per_page=20&page=2
                  Accept: application/json
                  Authorization: Bearer [REDACTED]
                  no body
                The closest of its 4 recorded interactions:
                  #1 GET https://api.example.com/users?page=1&per_page=20
                    - query parameter "page": recorded "1", requested "2"
                To fix: if "page" may differ, add .ignoringQueryParameters("page") to the cassette's matching; if the request is new, \
                record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.
                """
            ])
    }

    @Test func extraQueryParameter() async throws {
        let text = try await Self.reports([Self.request("GET", "https://api.example.com/users?page=1&per_page=20&debug=true")])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches GET https://api.example.com/users?page=1&per_page=20&debug=true in cassette \
                FILE (record mode none).
                Request: GET https://api.example.com/users?page=1&per_page=20&debug=true
                  Accept: application/json
                  no body
                The closest of its 4 recorded interactions:
                  #1 GET https://api.example.com/users?page=1&per_page=20
                    - query parameter "debug": recorded nothing, requested "true"
                To fix: if "debug" may differ, add .ignoringQueryParameters("debug") to the cassette's matching; if the request is new, \
                record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.
                """
            ])
    }

    @Test func jsonBodyDifferingAtOneNestedPath() async throws {
        let text = try await Self.reports([
            Self.request(
                "POST", "https://api.example.com/users",
                json: #"{"notify":true,"user":{"roles":["admin"],"name":"Bob"}}"#)
        ])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches POST https://api.example.com/users in cassette FILE (record mode none).
                Request: POST https://api.example.com/users
                  Accept: application/json
                  Content-Type: application/json
                  body (55 bytes): {"notify":true,"user":{"roles":["admin"],"name":"Bob"}}
                The closest of its 4 recorded interactions:
                  #2 POST https://api.example.com/users
                    - JSON body at user.name: recorded "Ada", requested "Bob"
                To fix: if "user.name" may differ, add .ignoringJSONPaths("user.name") to the cassette's matching; if the request \
                changed for good, re-record the cassette with CASSETTE_RECORD_MODE=all on a machine with network access (newEpisodes \
                would keep the stale recording beside the new one).
                """
            ])
    }

    @Test func headerMismatch() async throws {
        let text = try await Self.reports([Self.request("DELETE", "https://api.example.com/users/42", headers: ["Accept": "text/html"])])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches DELETE https://api.example.com/users/42 in cassette FILE (record mode none).
                Request: DELETE https://api.example.com/users/42
                  Accept: text/html
                  no body
                The closest of its 4 recorded interactions:
                  #3 DELETE https://api.example.com/users/42
                    - header Accept: recorded "application/json", requested "text/html"
                To fix: the cassette's matching compares "Accept" (.includingHeaders); leave it out if it may differ, or record the \
                request with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.
                """
            ])
    }

    @Test func alreadyUsedMatch() async throws {
        let delete = Self.request("DELETE", "https://api.example.com/users/42")
        let text = try await Self.reports([delete, delete])
        #expect(
            text == [
                nil,
                """
                Cassette: no recorded interaction matches DELETE https://api.example.com/users/42 in cassette FILE (record mode none).
                Request: DELETE https://api.example.com/users/42
                  Accept: application/json
                  no body
                It matches recorded interaction #3, which already answered an earlier request: each recorded interaction answers once.
                To fix: if the server answers this request more than once, record it with CASSETTE_RECORD_MODE=newEpisodes on a machine \
                with network access; to replay the last answer again instead, open the tape with Tape.Options(allowsRepeatedReplays: true).
                """,
            ])
    }

    @Test func formFieldDiffers() async throws {
        var login = Self.request("POST", "https://api.example.com/login")
        login.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        login.httpBody = Data("remember=0&user=ada".utf8)
        let text = try await Self.reports([login])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches POST https://api.example.com/login in cassette FILE (record mode none).
                Request: POST https://api.example.com/login
                  Accept: application/json
                  Content-Type: application/x-www-form-urlencoded
                  body (19 bytes): remember=0&user=ada
                The closest of its 4 recorded interactions:
                  #4 POST https://api.example.com/login
                    - form field "remember": recorded "1", requested "0"
                To fix: if the request's body changed for good, re-record the cassette with CASSETTE_RECORD_MODE=all on a machine with \
                network access (newEpisodes would keep the stale recording beside the new one); if the code under test should have \
                sent the recorded body, check what it builds.
                """
            ])
    }

    /// Mode `none` cannot record a cassette that does not exist: opening the tape says so.
    @Test func cassetteMissingInModeNone() throws {
        try withScratchTape { scratch in
            let file = scratch.file("Users/missing.json")
            #expect {
                try Tape(file: file, mode: .none, environment: .tests)
            } throws: { error in
                "\(error)" == "cassette \(file.path) does not exist and record mode \"none\" never records. "
                    + "Record it once with CASSETTE_RECORD_MODE=once on a machine with network access, and commit it."
            }
            // CI (no explicit mode) gets the same error.
            #expect(throws: CassetteError.cassetteNotFound(file: file.path, mode: .none)) {
                try Tape(file: file, environment: ["CI": "true"])
            }
        }
    }

    /// An empty cassette is most often one recorded while the code under test used another
    /// session: the report names that cause, as the tape did when it saved the empty file.
    @Test func emptyCassette() async throws {
        let text = try await Self.reports(
            cassette: #"{"version":1,"interactions":[]}"#, [Self.request("GET", "https://api.example.com/users")])
        #expect(
            text == [
                """
                Cassette: no recorded interaction matches GET https://api.example.com/users in cassette FILE (record mode none).
                Request: GET https://api.example.com/users
                  Accept: application/json
                  no body
                The cassette has no recorded interactions: when it was recorded, no request reached the tape. The code under test \
                most likely sent its requests through another URLSession (URLSession.shared, or one it made itself) instead of \
                tape.session or a configuration from tape.configure(_:).
                To fix: if the request is new, record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.
                """
            ])
    }

    /// The report as values: the request, the cassette and mode, the closest recordings and what
    /// differs in each — its text the description.
    @Test func theReportIsAlsoValues() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("pages.json")
            try Data(
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://api.example.com/users?page=1"}, "response": {"status": 200}}, {"request": {"method": "POST", "url": "https://api.example.com/login"}, "response": {"status": 204}}]}"#
                    .utf8
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let fetched = await Fetch.get("https://api.example.com/users?page=2", on: tape.session)
            let report = try tape.eject()
            let miss = try #require(report.unmatched.first)
            #expect(report.unmatched.count == 1)
            #expect(miss.request.method == "GET" && miss.request.url == "https://api.example.com/users?page=2")
            #expect(miss.cassette == file && miss.mode == RecordMode.none && miss.usedUp == 0)
            #expect(miss.candidates.map(\.number) == [1])
            #expect(miss.candidates.first?.request.url == "https://api.example.com/users?page=1")
            #expect(miss.candidates.first?.alreadyUsed == false)
            #expect(miss.candidates.first?.differences.map(\.field) == [.query("page")])
            #expect(
                miss.candidates.first?.differences.first?.recorded == "\"1\""
                    && miss.candidates.first?.differences.first?.requested == "\"2\"")
            #expect(miss.candidates.first?.differences.map(\.description) == [#"query parameter "page": recorded "1", requested "2""#])
            #expect(miss.description == fetched.errorDescription)
        }
    }
}
