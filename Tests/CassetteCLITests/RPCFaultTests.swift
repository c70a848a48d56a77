import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cassette fault --rpc-status`: a Connect or gRPC-Web call turned into a failure in its
/// protocol's own encoding, which replays as those bytes; anything else refused with why.
@Suite struct RPCFaultTests {
    static let ok = RPCEnvelope(flags: 0x80, payload: Data("grpc-status: 0\r\ngrpc-message: \r\n".utf8))
    static let message = RPCEnvelope(flags: 0, payload: ProtobufWire.encode([.init(1, .delimited(.text("ada")))]))

    /// A cassette of one call: POST to a method, the request's and the response's media types.
    static func call(
        in folder: URL, requestType: String, responseType: String, body: Data, headers: Interaction.Headers = [:]
    ) throws -> String {
        var requestHeaders = headers
        requestHeaders.add("Content-Type", requestType)
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "POST", url: "https://api.example.com/users.v1.UserService/GetUser", headers: requestHeaders),
                response: .init(
                    status: 200, headers: ["Content-Type": responseType, "Content-Length": String(body.count)],
                    body: .init(body, contentType: responseType)))
        ])
        let file = folder.appendingPathComponent("call.json")
        try JSONCassetteCodec.encode(document).write(to: file)
        return file.path
    }

    static func response(in file: String) throws -> Interaction.Response? {
        try JSONCassetteCodec.decode(try Data(contentsOf: URL(fileURLWithPath: file))).interactions.first?.response
    }

    @Test func aGRPCWebCallFailsWithItsTrailersAndReplaysThem() async throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Self.call(
            in: folder, requestType: "application/grpc-web+proto", responseType: "application/grpc-web+proto",
            body: Self.message.framed + Self.ok.framed)
        let result = Captured.run([
            "fault", file, "--interaction", "1", "--rpc-status", "unavailable", "--rpc-message", "try again, ünd 100%",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.out == "\(file): interaction #1 (POST https://api.example.com/users.v1.UserService/GetUser): "
                + "rpc status unavailable (14) \"try again, ünd 100%\"\n")
        let trailers = RPCEnvelope(flags: 0x80, payload: Data("grpc-status: 14\r\ngrpc-message: try again, %C3%BCnd 100%25\r\n".utf8))
            .framed
        let response = try #require(try Self.response(in: file))
        #expect(response.status == 200 && response.body.data == trailers)
        #expect(response.headers["Content-Type"] == "application/grpc-web+proto")
        #expect(response.headers["Content-Length"] == String(trailers.count))
        #expect(
            try String(contentsOfFile: file, encoding: .utf8).contains(
                #"{ "trailers": ["grpc-status: 14", "grpc-message: try again, %C3%BCnd 100%25"] }"#))
        #expect(Captured.run(["lint", file]).out == "1 cassette, 1 interaction, 0 errors\n")

        // Replayed, the client gets those bytes: a gRPC-Web client reads the status from them.
        let tape = try Tape(file: URL(fileURLWithPath: file), mode: .none, environment: .tests)
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/users.v1.UserService/GetUser")))
        request.httpMethod = "POST"
        request.setValue("application/grpc-web+proto", forHTTPHeaderField: "Content-Type")
        let replayed = await Fetch.run(request, on: tape.session, style: .async)
        _ = try tape.eject()
        #expect(replayed.status == 200 && replayed.body == trailers && replayed.errorCode == nil)
    }

    /// The fault is written with the field names of the descriptor set beside the cassette, as a
    /// save writes them: the request's message keeps its names.
    @Test func aFaultKeepsTheFieldNamesOfTheDescriptorSetBesideIt() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let protoset = PackagePaths.root.appendingPathComponent("Tests/CassetteFormatsTests/Fixtures/Canonical/users.protoset")
        try FileManager.default.copyItem(at: protoset, to: folder.appendingPathComponent("users.protoset"))
        let request = RPCEnvelope(flags: 0, payload: ProtobufWire.encode([.init(4, .delimited(.text("ada")))])).framed
        let type = "application/grpc-web+proto"
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(
                    method: "POST", url: "https://api.example.com/users.v1.UserService/GetUser", headers: ["Content-Type": type],
                    body: .init(request, contentType: type)),
                response: .init(
                    status: 200, headers: ["Content-Type": type], body: .init(Self.message.framed + Self.ok.framed, contentType: type)))
        ])
        let file = folder.appendingPathComponent("call.json")
        try JSONCassetteCodec.encode(document).write(to: file)
        let named = #"{ "proto": [{ "field": 4, "name": "nickname", "text": "ada" }] }"#
        #expect(try !String(contentsOf: file, encoding: .utf8).contains(named))
        let result = Captured.run(["fault", file.path, "--interaction", "1", "--rpc-status", "unavailable"])
        #expect(result.status == 0, "\(result.error)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(named), "\(text)")
        #expect(text.contains(#"{ "trailers": ["grpc-status: 14"] }"#), "\(text)")
        #expect(try JSONCassetteCodec.decode(Data(text.utf8)).interactions.first?.request.body.data == request)
    }

    @Test func aConnectStreamFailsWithItsEndOfStreamError() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let end = RPCEnvelope(flags: 2, payload: Data("{}".utf8))
        let file = try Self.call(
            in: folder, requestType: "application/connect+proto", responseType: "application/connect+proto",
            body: Self.message.framed + end.framed)
        let result = Captured.run(["fault", file, "--interaction", "1", "--rpc-status", "DEADLINE_EXCEEDED"])
        #expect(result.status == 0, "\(result.error)")
        let response = try #require(try Self.response(in: file))
        #expect(response.status == 200)
        #expect(response.body.data == RPCEnvelope(flags: 2, payload: Data(#"{"error":{"code":"deadline_exceeded"}}"#.utf8)).framed)
    }

    @Test func aUnaryConnectCallFailsWithItsHTTPStatusAndJSONError() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Self.call(
            in: folder, requestType: "application/json", responseType: "application/json", body: Data(#"{"name":"ada"}"#.utf8),
            headers: ["Connect-Protocol-Version": "1"])
        #expect(Captured.run(["fault", file, "--interaction", "1", "--rpc-status", "5", "--rpc-message", "no user 7"]).status == 0)
        let response = try #require(try Self.response(in: file))
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.body.text == #"{"code":"not_found","message":"no user 7"}"#)
        #expect(response.headers["Content-Length"] == "42")
    }

    @Test func anythingElseIsRefusedWithWhy() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try Self.call(in: folder, requestType: "application/json", responseType: "application/json", body: Data("{}".utf8))
        let notRPC = Captured.run(["fault", plain, "--interaction", "1", "--rpc-status", "unavailable"])
        #expect(notRPC.status == 1)
        #expect(
            notRPC.error == "\(plain): error: interaction #1 (POST https://api.example.com/users.v1.UserService/GetUser) cannot take this "
                + "fault: it is not a Connect or gRPC-Web call (its Content-Type is application/json): --rpc-status writes a status as "
                + "those protocols send one; use --status for an HTTP status\n")
        let connect = try Self.call(
            in: folder, requestType: "application/proto", responseType: "application/proto", body: Self.message.payload)
        #expect(
            Captured.run(["fault", connect, "--interaction", "1", "--rpc-status", "ok"]).error.hasSuffix(
                "cannot take this fault: a Connect call that succeeds sends no status; give the code of a failure (unavailable, …)\n"))
        let unknown = Captured.run(["fault", connect, "--interaction", "1", "--rpc-status", "17"])
        #expect(unknown.status == 2)
        #expect(
            unknown.error.contains(
                "--rpc-status takes a status code's name (unavailable, deadline_exceeded, …) or number, 0 to 16, found '17'"))
        let both = Captured.run(["fault", connect, "--interaction", "1", "--rpc-status", "unavailable", "--status", "500"])
        #expect(both.status == 2 && both.error.contains("--rpc-status writes the call's status, body and Content-Type"))
        #expect(
            Captured.run(["fault", connect, "--interaction", "1", "--rpc-message", "x"]).error.contains(
                "--rpc-message goes with --rpc-status"))
    }

    @Test func codesByNameNumberAndHTTPStatus() {
        #expect(RPCStatusCode(named: "UNAVAILABLE")?.number == 14 && RPCStatusCode(named: "CANCELLED")?.number == 1)
        #expect(RPCStatusCode(named: "14")?.connectName == "unavailable" && RPCStatusCode(named: "ok")?.number == 0)
        #expect(RPCStatusCode(named: "nope") == nil)
        let statuses = (0...16).compactMap { RPCStatusCode(number: $0)?.httpStatus }
        #expect(statuses == [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401])
        #expect(RPCFailure.percentEncoded("héllo 100%") == "h%C3%A9llo 100%25")
    }
}
