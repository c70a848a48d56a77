import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A HAR file made by a tool nobody here wrote: mitmproxy in reverse-proxy mode in front of
/// httpbin, with its HAR dump option (`Fixtures/mitmproxy/regenerate.sh` makes it again).
/// Imported as a cassette, it replays every entry offline with the status and bytes mitmproxy
/// saw, read here from the HAR with `JSONSerialization`, not with Cassette's reader.
@Suite struct MitmproxyHARTests {
    static let har = PackagePaths.root.appendingPathComponent("Tests/CassetteTests/Fixtures/mitmproxy/httpbin.har")

    struct Entry {
        var request: URLRequest
        var status: Int
        var body: Data
        var headers: [(String, String)]
    }

    /// The entries as another JSON reader sees them.
    static func entries() throws -> [Entry] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "mitmproxy")
        let entries = try #require(log["entries"] as? [[String: Any]])
        return try entries.map { entry in
            let request = try #require(entry["request"] as? [String: Any])
            let response = try #require(entry["response"] as? [String: Any])
            let url = try #require(request["url"] as? String)
            var urlRequest = URLRequest(url: try #require(URL(string: url)))
            urlRequest.httpMethod = request["method"] as? String
            for header in request["headers"] as? [[String: String]] ?? [] where header["name"] != "Host" {
                urlRequest.addValue(header["value"] ?? "", forHTTPHeaderField: header["name"] ?? "")
            }
            if let text = (request["postData"] as? [String: Any])?["text"] as? String { urlRequest.httpBody = Data(text.utf8) }
            let content = try #require(response["content"] as? [String: Any])
            let text = content["text"] as? String ?? ""
            let body = content["encoding"] as? String == "base64" ? try #require(Data(base64Encoded: text)) : Data(text.utf8)
            let headers = (response["headers"] as? [[String: String]] ?? []).map { ($0["name"] ?? "", $0["value"] ?? "") }
            return Entry(request: urlRequest, status: try #require(response["status"] as? Int), body: body, headers: headers)
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func everyEntryReplaysWithItsStatusAndBytes(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("httpbin.har")
            try FileManager.default.copyItem(at: Self.har, to: file)
            let entries = try Self.entries()
            #expect(entries.count == 13)
            // What the capture holds: bodies as text, JSON, form, binary (base64) and empty.
            #expect(Set(entries.map(\.status)) == [200, 204, 302, 418])
            #expect(entries.contains { $0.body.count == 2048 })

            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let session = Fetch.session(of: tape, style: style)
            for entry in entries {
                let replayed = await Fetch.run(entry.request, on: session, style: style)
                let what = "\(entry.request.httpMethod ?? "") \(entry.request.url?.absoluteString ?? "")"
                if entry.status == 302 {
                    // The capture was made without following the redirect; a URLSession client follows
                    // it, as live, and the next hop (GET /get) is not in the capture.
                    #expect(replayed.errorCode == Tape.unmatchedRequestErrorCode, "\(what)")
                    #expect(
                        replayed.errorDescription?.hasPrefix(
                            "Cassette: no recorded interaction matches GET http://127.0.0.1:37019/get in cassette") == true)
                    continue
                }
                #expect(replayed.errorCode == nil, "\(what): \(replayed.errorDescription ?? "")")
                #expect(replayed.status == entry.status, "\(what)")
                #expect(replayed.body == entry.body, "\(what): \(replayed.body.count) bytes, expected \(entry.body.count)")
                for (name, value) in entry.headers where name == "Content-Type" {
                    #expect(replayed.headers[name] == value, "\(what)")
                }
            }
            let report = try tape.eject()
            #expect(report.replayed == entries.count)
            #expect(report.unmatched.count == 1)
        }
    }
}
