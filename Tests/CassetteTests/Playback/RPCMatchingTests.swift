import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls to one Connect or gRPC-Web method differ by their request messages: each is answered
/// with its own recording, and a miss names the message fields that differ — for a unary POST,
/// a Connect GET (whose message is in the query) and a gRPC-Web body of envelopes.
@Suite struct RPCMatchingTests {
    static let path = "/rpc.Echo/Say"

    /// `{ 1: "hello", 2: { 1: name, 2: 7 } }`.
    static func message(name: String, count: UInt64 = 7) -> Data {
        ProtobufWire.encode([
            .init(1, .delimited(.text("hello"))),
            .init(2, .delimited(.message([.init(1, .delimited(.text(name))), .init(2, .varint(count))]))),
        ])
    }

    static func post(_ server: LoopbackServer, _ body: Data, contentType: String = "application/proto") throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: server.baseURL + path)))
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return request
    }

    /// A Connect GET: the message in the query, base64url, padded or not.
    static func get(_ server: LoopbackServer, _ message: Data, padded: Bool) throws -> URLRequest {
        var base64 = message.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        if !padded {
            base64 = base64.replacingOccurrences(of: "=", with: "")
        } else {
            base64 = base64.replacingOccurrences(of: "=", with: "%3D")
        }
        return URLRequest(url: try #require(URL(string: server.baseURL + path + "?connect=v1&encoding=proto&base64=1&message=\(base64)")))
    }

    static func echoed(_ message: Data) -> Data { Data([0x0A, UInt8(message.count)]) + message }

    @Test func twoCallsToOneMethodAreEachAnsweredWithTheirOwnRecording() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("echo.json")
            let ada = Self.message(name: "Ada")
            let grace = Self.message(name: "Grace")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            for body in [ada, grace] {
                let live = await Fetch.run(try Self.post(scratch.server, body), on: recorder.session, style: .async)
                #expect(live.status == 200 && live.body == Self.echoed(body))
            }
            #expect(try recorder.eject().recorded == 2)

            let player = try Tape(file: file, mode: .none, environment: .tests)
            for body in [grace, ada] {
                let replayed = await Fetch.run(try Self.post(scratch.server, body), on: player.session, style: .async)
                #expect(replayed.status == 200 && replayed.body == Self.echoed(body), "\(replayed)")
            }
            #expect(try player.eject().replayed == 2)
        }
    }

    @Test func aMissNamesTheFieldsOfTheMessageThatDiffer() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("echo.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            _ = await Fetch.run(try Self.post(scratch.server, Self.message(name: "Ada")), on: recorder.session, style: .async)
            try recorder.eject()

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let missed = await Fetch.run(
                try Self.post(scratch.server, Self.message(name: "Grace", count: 8)), on: player.session, style: .async)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let unmatched = try #require(try player.eject().unmatched.first)
            let differences = try #require(unmatched.candidates.first?.differences)
            #expect(
                differences == [
                    RequestDifference(
                        field: .body, recorded: #""Ada""#, requested: #""Grace""#,
                        messageField: .init(message: nil, path: [.init(2), .init(1)])),
                    RequestDifference(
                        field: .body, recorded: "7", requested: "8", messageField: .init(message: nil, path: [.init(2), .init(2)])),
                ])
            #expect(
                differences.map(\.description) == [
                    #"message field 2.1: recorded "Ada", requested "Grace""#, "message field 2.2: recorded 7, requested 8",
                ])
            #expect(missed.errorDescription?.contains(#"message field 2.1: recorded "Ada", requested "Grace""#) == true, "\(missed)")
        }
    }

    @Test func aConnectGetMatchesByItsDecodedMessage() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("get.json")
            let ada = Self.message(name: "Ada")  // 15 bytes: base64 with padding
            #expect(ada.base64EncodedString().hasSuffix("="))
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = await Fetch.run(try Self.get(scratch.server, ada, padded: true), on: recorder.session, style: .async)
            #expect(live.status == 200 && live.body == Self.echoed(ada))
            try recorder.eject()

            // The same message without padding is the same call.
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.run(try Self.get(scratch.server, ada, padded: false), on: player.session, style: .async)
            #expect(replayed.status == 200 && replayed.body == Self.echoed(ada), "\(replayed)")

            // Another message misses, and the report names its field, not the query parameter.
            let missed = await Fetch.run(
                try Self.get(scratch.server, Self.message(name: "Bob"), padded: false), on: player.session, style: .async)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let report = try player.eject()
            #expect(report.replayed == 1)
            #expect(
                report.unmatched.first?.candidates.first?.differences == [
                    RequestDifference(
                        field: .body, recorded: #""Ada""#, requested: #""Bob""#,
                        messageField: .init(message: nil, path: [.init(2), .init(1)]))
                ])
        }
    }

    @Test func aGRPCWebCallNamesTheMessageOfTheStreamThatDiffers() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("grpc-web.json")
            func body(_ second: String) -> Data {
                RPCEnvelope(flags: 0, payload: Self.message(name: "Ada")).framed
                    + RPCEnvelope(flags: 0, payload: Self.message(name: second)).framed
            }
            let contentType = "application/grpc-web+proto"
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = await Fetch.run(
                try Self.post(scratch.server, body("Ada"), contentType: contentType), on: recorder.session, style: .async)
            #expect(live.status == 200 && RPCEnvelope.split(live.body).envelopes.count == 3)
            try recorder.eject()

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.run(
                try Self.post(scratch.server, body("Ada"), contentType: contentType), on: player.session, style: .async)
            #expect(replayed.body == live.body)
            let missed = await Fetch.run(
                try Self.post(scratch.server, body("Grace"), contentType: contentType), on: player.session, style: .async)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let differences = try #require(try player.eject().unmatched.first?.candidates.first?.differences)
            #expect(differences.map(\.description) == [#"messages[1] field 2.1: recorded "Ada", requested "Grace""#])
        }
    }

    @Test func aConnectGetIsToldByItsMessageParameter() {
        #expect(ConnectGetMessage.hasMessageParameter("https://a.example/s/M?message=CgA&encoding=proto"))
        #expect(ConnectGetMessage.hasMessageParameter("https://a.example/s/M?encoding=proto&message="))
        #expect(!ConnectGetMessage.hasMessageParameter("https://a.example/s/M?encoding=proto&amessage=1"))
        #expect(!ConnectGetMessage.hasMessageParameter("https://a.example/s/M?encoding=proto#&message=1"))
        #expect(!ConnectGetMessage.hasMessageParameter("https://a.example/message=/M"))
        #expect(!ConnectGetMessage.hasMessageParameter("https://a.example/s/M?message"))
    }

    /// Without a network: what the rules say of bodies read as messages.
    @Test func envelopesOfJSONMatchByMeaningAndAStreamWithAMessageMoreIsNamed() throws {
        func request(_ body: Data, contentType: String = "application/connect+json") -> Interaction.Request {
            Interaction.Request(
                method: "POST", url: "https://api.example.com/chat.v1.Chat/Talk", headers: ["Content-Type": contentType],
                body: Interaction.Body(body))
        }
        func envelopes(_ payloads: [String]) -> Data {
            payloads.reduce(Data()) { $0 + RPCEnvelope(flags: 0, payload: Data($1.utf8)).framed }
        }
        let recorded = request(envelopes([#"{"a":1,"b":2}"#]))
        #expect(RequestMatching.default.matches(request(envelopes([#"{"b":2,"a":1}"#])), recorded))
        #expect(!RequestMatching.default.matches(request(envelopes([#"{"a":1,"b":3}"#])), recorded))

        let more = request(envelopes([#"{"a":1,"b":2}"#, #"{"c":3}"#]))
        #expect(
            RequestDifference.between(more, recorded, rules: .default).map(\.description) == [
                #"messages[1]: recorded nothing, requested "{\"c\":3}""#
            ])
        let comparison = InteractionComparison.requestDifferences(recorded, more)
        #expect(comparison.map(\.name) == ["request.body.messages[1]"])

        // A protobuf message field by field, in `cassette diff`'s names too.
        let old = request(Self.message(name: "Ada"), contentType: "application/proto")
        let new = request(Self.message(name: "Grace"), contentType: "application/proto")
        #expect(InteractionComparison.requestDifferences(old, new).map(\.description) == [#"request.body.2.1: "Ada" → "Grace""#])
    }
}
