import CassetteFormats
import Foundation
import Testing

/// What `cassette lint` says of Connect and gRPC-Web responses a client would not take: a missing
/// final status, a status or an error code the protocol does not have, a stream cut short.
@Suite struct RPCWarningsTests {
    static let message = RPCEnvelope(flags: 0, payload: ProtobufWire.encode([.init(1, .delimited(.text("ada")))]))

    static func trailers(_ lines: [String]) -> RPCEnvelope {
        RPCEnvelope(flags: RPCEnvelope.trailers, payload: RPCTrailerLines.payload(of: lines))
    }

    static func warnings(
        _ envelopes: [RPCEnvelope], rest: Data = Data(), contentType: String = "application/grpc-web+proto",
        headers: Interaction.Headers = [:], error: Interaction.TransportError? = nil
    ) -> [String] {
        var all = headers
        all.add("Content-Type", contentType)
        let body = RPCEnvelope.Framed(envelopes: envelopes, rest: rest).joined
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "POST", url: "https://a.example/users.v1.UserService/GetUser"),
                response: .init(status: 200, headers: all, body: .init(body, contentType: contentType)), error: error)
        ])
        let warnings = document.warnings()
        for warning in warnings { #expect(warning.path?.description == "interactions[0].response.body") }
        return warnings.map(\.message)
    }

    static let noStatus =
        "a gRPC call ends with its status: a trailers envelope with \"grpc-status: 0\" (or the code of its failure), or "
        + "grpc-status in the headers of a response with no message; a client reports this call as failed"

    @Test func aWholeGRPCWebCallHasNoWarning() {
        #expect(Self.warnings([Self.message, Self.trailers(["grpc-status: 0", "grpc-message: "])]) == [])
        #expect(Self.warnings([Self.trailers(["Grpc-Status: 14", "grpc-message: try again"])]) == [])
        // Trailers-only: no message, the status in the headers.
        #expect(Self.warnings([], headers: ["grpc-status": "5"]) == [])
    }

    @Test func aGRPCWebCallWithoutItsStatusIsSaid() {
        #expect(Self.warnings([Self.message]) == [Self.noStatus])
        #expect(Self.warnings([Self.message, Self.trailers(["grpc-message: none"])]) == [Self.noStatus])
    }

    @Test func aStatusGRPCDoesNotHaveIsSaid() {
        #expect(
            Self.warnings([Self.message, Self.trailers(["grpc-status: 17"])])
                == [#"grpc-status is "17", not a gRPC status code (0 to 16)"#])
        #expect(
            Self.warnings([], headers: ["grpc-status": "unavailable"]) == [
                #"grpc-status is "unavailable", not a gRPC status code (0 to 16)"#
            ])
    }

    @Test func aConnectStreamEndsWithItsEndOfStreamMessage() {
        let end = RPCEnvelope(flags: RPCEnvelope.endOfStream, payload: Data(#"{"error":{"code":"unavailable","message":"later"}}"#.utf8))
        #expect(Self.warnings([Self.message, end], contentType: "application/connect+proto") == [])
        #expect(
            Self.warnings([Self.message], contentType: "application/connect+proto")
                == ["a Connect stream ends with its end-of-stream message (\"endStream\"); a client reports this call as failed"])
        let misspelt = RPCEnvelope(flags: RPCEnvelope.endOfStream, payload: Data(#"{"error":{"code":"unavailabel"}}"#.utf8))
        #expect(
            Self.warnings([misspelt], contentType: "application/connect+json")
                == [
                    "a Connect error's \"code\" is one of canceled, unknown, invalid_argument, deadline_exceeded, not_found, "
                        + "already_exists, permission_denied, resource_exhausted, failed_precondition, aborted, out_of_range, "
                        + "unimplemented, internal, unavailable, data_loss, unauthenticated; found \"unavailabel\""
                ])
        let notJSON = RPCEnvelope(flags: RPCEnvelope.endOfStream, payload: Data("done".utf8))
        #expect(
            Self.warnings([notJSON], contentType: "application/connect+json")
                == ["a Connect end-of-stream message is a JSON object ({} when the call succeeded)"])
    }

    @Test func aStreamCutShortIsSaidAndAFailedCallIsLeftAlone() {
        #expect(
            Self.warnings([Self.message, Self.trailers(["grpc-status: 0"])], rest: Data([0, 0, 0]))
                == [
                    "the body ends 3 bytes into an envelope that is not whole: a replay delivers it cut, as it was recorded; "
                        + "if that is not the scenario, remove the \"cut\" bytes"
                ])
        #expect(Self.warnings([Self.message], error: .init(code: .networkConnectionLost)) == [])
    }

    @Test func statusCodesByNumberAndByName() {
        #expect(RPCStatusCode.names.count == 17)
        #expect(RPCStatusCode(number: 14)?.connectName == "unavailable")
        #expect(RPCStatusCode(connectName: "canceled")?.number == 1)
        #expect(RPCStatusCode(connectName: "unauthenticated")?.number == 16)
        #expect(RPCStatusCode(number: 17) == nil && RPCStatusCode(number: -1) == nil)
        #expect(RPCStatusCode(connectName: "ok") == nil && RPCStatusCode(connectName: "cancelled") == nil)
        #expect(RPCStatusCode(number: 4)?.description == "deadline_exceeded (4)")
    }
}
