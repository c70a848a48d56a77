import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Connect and gRPC-Web calls recorded from a server nobody here wrote — connectrpc from PyPI
/// (`.ci/rpc_upstream.py`), started by `.ci/run` beside httpbin — then replayed offline.
///
/// The same two phases as ``HTTPBinTests``, with the server stopped in between:
/// - `CASSETTE_HTTPBIN_PHASE=record`: each call below, through each API (async,
///   completion handler, delegate), live and recorded from `CASSETTE_RPC_URL` into
///   `CASSETTE_HTTPBIN_WORKDIR/rpc-STYLE.json`; what the recording caller received is written
///   beside it (`rpc-STYLE-recorded.json`).
/// - `CASSETTE_HTTPBIN_PHASE=replay`: replays each cassette in mode `none` with the recorded
///   latency; the caller receives exactly what the recording caller received, and a delegate
///   each message of a stream in its own piece, on time.
///
/// Without the phase these tests are skipped (reported as skipped); with
/// `CASSETTE_REQUIRE_HTTPBIN=1` a missing setting fails.
@Suite(.serialized) struct RPCUpstreamTests {
    static let environment = ProcessInfo.processInfo.environment
    static let phase = environment["CASSETTE_HTTPBIN_PHASE"]
    static let service = "/cassette.v1.Greeter"

    /// `{ 1: name, 2: count }`, as protobuf.
    static func message(_ name: String, count: UInt8? = nil) -> Data {
        Data([0x0A, UInt8(name.utf8.count)] + Array(name.utf8) + (count.map { [0x10, $0] } ?? []))
    }

    static func enveloped(_ message: Data) -> Data { Data([0, 0, 0, 0, UInt8(message.count)]) + message }

    /// The calls, as (label, request) pairs: unary Connect (POST and GET), a Connect server
    /// stream, gRPC-Web unary and stream, each also failing.
    static func calls(base: String) -> [(String, URLRequest)] {
        func post(_ method: String, _ body: Data, _ contentType: String) -> URLRequest {
            var request = URLRequest(url: URL(string: base + service + "/" + method)!)
            request.httpMethod = "POST"
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = body
            request.timeoutInterval = 30
            return request
        }
        let query = message("Ada").base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        var get = URLRequest(url: URL(string: base + service + "/Greet?encoding=proto&base64=1&message=\(query)&connect=v1")!)
        get.timeoutInterval = 30
        return [
            ("connect unary", post("Greet", message("Ada"), "application/proto")),
            ("connect get", get),
            ("connect error", post("Greet", message("fail"), "application/proto")),
            ("connect stream", post("Count", enveloped(message("Ada", count: 3)), "application/connect+proto")),
            ("connect stream error", post("Count", enveloped(message("fail", count: 2)), "application/connect+proto")),
            ("grpc-web unary", post("Greet", enveloped(message("Ada")), "application/grpc-web+proto")),
            ("grpc-web error", post("Greet", enveloped(message("fail")), "application/grpc-web+proto")),
            ("grpc-web stream", post("Count", enveloped(message("Ada", count: 3)), "application/grpc-web+proto")),
        ]
    }

    struct Settings {
        var base: String
        var workdir: URL
    }

    static func settings() -> Settings? {
        guard let base = environment["CASSETTE_RPC_URL"], let workdir = environment["CASSETTE_HTTPBIN_WORKDIR"] else {
            Issue.record("CASSETTE_HTTPBIN_PHASE is set but CASSETTE_RPC_URL or CASSETTE_HTTPBIN_WORKDIR is not")
            return nil
        }
        return Settings(base: base, workdir: URL(fileURLWithPath: workdir))
    }

    /// The same outcome but for `Date`, which the server writes for each response.
    static func same(_ a: Fetched, _ b: Fetched) -> Bool {
        var a = a
        var b = b
        a.headers["Date"] = nil
        b.headers["Date"] = nil
        return a.sameOutcome(as: b)
    }

    static func session(_ style: FetchStyle, _ configure: @escaping @Sendable (URLSessionConfiguration) -> Void) -> URLSession {
        style == .delegate ? Fetch.delegateSession(configuredBy: configure) : URLSession(configuration: configured(configure))
    }

    private static func configured(_ configure: (URLSessionConfiguration) -> Void) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configure(configuration)
        return configuration
    }

    @Test func ciAskedForTheRPCUpstreamAndGotIt() {
        guard Self.environment["CASSETTE_REQUIRE_HTTPBIN"] == "1", Self.phase != nil else { return }
        #expect(Self.environment["CASSETTE_RPC_URL"] != nil, "CI requires the RPC upstream; CASSETTE_RPC_URL is unset")
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts the RPC upstream"), arguments: FetchStyle.allCases)
    func recordRPCCallsFromConnectRPC(style: FetchStyle) async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let file = settings.workdir.appendingPathComponent("rpc-\(style).json")
        try? FileManager.default.removeItem(at: file)
        let tape = try Tape(file: file, mode: .all, environment: .tests)
        let plain = Self.session(style) { _ in }
        let recording = Self.session(style, tape.configure)
        var kept: [[String: Any]] = []
        var live: [String: Fetched] = [:]
        for (label, request) in Self.calls(base: settings.base) {
            let fetched = await Fetch.run(request, on: plain, style: style)
            let recorded = await Fetch.run(request, on: recording, style: style)
            #expect(Self.same(recorded, fetched), "\(label): recorded \(recorded), live \(fetched)")
            live[label] = fetched
            kept.append(["status": recorded.status ?? 0, "headers": recorded.headers, "body": recorded.body.base64EncodedString()])
        }
        #expect(try tape.eject().recorded == Self.calls(base: settings.base).count)
        try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]).write(
            to: settings.workdir.appendingPathComponent("rpc-\(style)-recorded.json"))

        // What connectrpc answered, as any client sees it.
        let hello = Data([0x0A, 11]) + Data("Hello, Ada!".utf8)
        #expect(live["connect unary"]?.status == 200 && live["connect unary"]?.body == hello)
        #expect(live["connect get"]?.status == 200 && live["connect get"]?.body == hello)
        #expect(live["connect error"]?.status == 503 && live["connect error"]?.text.contains(#""code": "unavailable""#) == true)
        #expect(live["grpc-web unary"]?.body == Self.enveloped(hello) + Self.trailers("grpc-status: 0\r\n"))
        #expect(live["grpc-web error"]?.body == Self.trailers("grpc-status: 14\r\ngrpc-message: try%20again\r\n"))
        #expect(live["connect stream error"]?.text.contains(#""code": "resource_exhausted""#) == true)

        // The cassette shows the calls message by message.
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#""proto": [{ "field": 1, "text": "Hello, Ada!" }]"#), "\(text)")
        #expect(text.contains(#""trailers": ["grpc-status: 14", "grpc-message: try%20again"]"#), "\(text)")
        #expect(text.contains(#"{ "field": 1, "text": "Ada 2" }, { "field": 2, "varint": 2 }"#), "\(text)")
    }

    static func trailers(_ lines: String) -> Data {
        Data([0x80, 0, 0, 0, UInt8(lines.utf8.count)]) + Data(lines.utf8)
    }

    @Test(
        .enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped the RPC upstream"), arguments: FetchStyle.allCases)
    func replayRPCCallsOffline(style: FetchStyle) async throws {
        guard let settings = Self.settings() else { return }
        let file = settings.workdir.appendingPathComponent("rpc-\(style).json")
        let kept = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: settings.workdir.appendingPathComponent("rpc-\(style)-recorded.json")))
                as? [[String: Any]])
        let tape = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
        let session = Fetch.session(of: tape, style: style)
        for ((label, request), recorded) in zip(Self.calls(base: settings.base), kept) {
            let replayed = await Fetch.run(request, on: session, style: style)
            #expect(replayed.errorCode == nil, "\(label): \(replayed)")
            #expect(replayed.status == recorded["status"] as? Int, "\(label)")
            #expect(replayed.headers == recorded["headers"] as? [String: String], "\(label)")
            #expect(replayed.body.base64EncodedString() == recorded["body"] as? String, "\(label)")
            if style == .delegate, label.hasSuffix(" stream") {
                // Three messages and the end, each in its own piece, 0.1 s apart as recorded.
                #expect(replayed.pieces.count == 4, "\(label): \(replayed.pieces)")
                let spread = (replayed.pieceTimes.dropLast().last ?? 0) - (replayed.pieceTimes.first ?? 0)
                #expect(spread >= 0.15, "\(label): the messages arrived within \(spread) s")
            }
        }
        // Another name is another call: it misses, and the report names the field.
        var other = Self.calls(base: settings.base)[0].1
        other.httpBody = Self.message("Grace")
        let missed = await Fetch.run(other, on: session, style: style)
        #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
        let report = try tape.eject()
        #expect(report.replayed == Self.calls(base: settings.base).count)
        #expect(
            report.unmatched.first?.candidates.first?.differences.map(\.description) == [
                #"message field 1: recorded "Ada", requested "Grace""#
            ])
    }
}
