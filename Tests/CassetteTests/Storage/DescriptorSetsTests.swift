import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `FileDescriptorSet` kept beside a cassette names the fields of the Connect and gRPC-Web
/// messages a recording saves there; the names change no byte that replays, and a file that is
/// not a descriptor set is named in a warning without costing the recording.
@Suite struct DescriptorSetsTests {
    static let protoset = PackagePaths.root.appendingPathComponent("Tests/CassetteTests/Fixtures/Protobuf/echo.protoset")

    /// `rpc.Said { greeting: "hello", who: { name: "Ada", count: 7 } }`.
    static let said = ProtobufWire.encode([
        .init(1, .delimited(.text("hello"))),
        .init(2, .delimited(.message([.init(1, .delimited(.text("Ada"))), .init(2, .varint(7))]))),
    ])

    static func post(_ scratch: ScratchTape) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: scratch.url("/rpc.Echo/Say"))))
        request.httpMethod = "POST"
        request.setValue("application/proto", forHTTPHeaderField: "Content-Type")
        request.httpBody = said
        return request
    }

    /// Records the call into `echo.json` and replays it offline; returns the saved text and what
    /// was written to standard error.
    static func recordAndReplay(_ scratch: ScratchTape) async throws -> (text: String, warnings: [String]) {
        let file = scratch.file("echo.json")
        let warnings = try await StandardError.capturing {
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = await Fetch.run(try post(scratch), on: recorder.session, style: .async)
            #expect(live.status == 200 && live.body == Data([0x0A, UInt8(said.count)]) + said)
            #expect(try recorder.eject().recorded == 1)
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.run(try post(scratch), on: player.session, style: .async)
            #expect(replayed.status == live.status && replayed.body == live.body)
            #expect(replayed.headers["Content-Type"] == "application/proto")
            _ = try player.eject()
        }
        return (String(decoding: try Data(contentsOf: file), as: UTF8.self), warnings)
    }

    @Test func aRecordingSavedBesideADescriptorSetNamesItsFields() async throws {
        try await withScratchTape { scratch in
            try FileManager.default.copyItem(at: Self.protoset, to: scratch.file("echo.protoset"))
            let saved = try await Self.recordAndReplay(scratch)
            #expect(saved.warnings == [])
            #expect(
                saved.text.contains(
                    """
                            "body": {
                              "proto": [
                                { "field": 1, "name": "greeting", "text": "hello" },
                                {
                                  "field": 2,
                                  "name": "who",
                                  "message": [
                                    { "field": 1, "name": "name", "text": "Ada" },
                                    { "field": 2, "name": "count", "varint": 7 }
                                  ]
                                }
                              ]
                            }
                          },
                    """), "\(saved.text)")
            // The response, a Heard, holds the Said as its field 1.
            #expect(saved.text.contains("{\n              \"field\": 1,\n              \"name\": \"said\",\n"), "\(saved.text)")
        }
    }

    @Test func withoutADescriptorSetTheFieldsAreNumbersAlone() async throws {
        try await withScratchTape { scratch in
            let saved = try await Self.recordAndReplay(scratch)
            #expect(saved.warnings == [])
            #expect(saved.text.contains(#"{ "field": 1, "text": "hello" },"#), "\(saved.text)")
            #expect(!saved.text.contains(#""name":"#))
        }
    }

    /// A broken set is named with why; the recording is saved, named by the sets that read.
    @Test func aFileThatIsNotADescriptorSetIsWarnedOfAndTheRecordingKept() async throws {
        try await withScratchTape { scratch in
            try FileManager.default.copyItem(at: Self.protoset, to: scratch.file("echo.protoset"))
            try Data("not a descriptor set".utf8).write(to: scratch.file("broken.binpb"))
            let saved = try await Self.recordAndReplay(scratch)
            #expect(
                saved.warnings == [
                    "Cassette warning: \(scratch.file("broken.binpb").path): expected a FileDescriptorSet (protoc --include_imports "
                        + "--descriptor_set_out=FILE), found bytes that are not a protobuf message; the cassette echo.json is written "
                        + "without the field names it would give"
                ])
            #expect(saved.text.contains(#"{ "field": 1, "name": "greeting", "text": "hello" },"#), "\(saved.text)")
        }
    }

    /// Only a JSON cassette holding a protobuf message reads the folder: a cassette of other
    /// bodies, or in another format, is written as before.
    @Test func onlyACassetteOfMessagesReadsTheSets() throws {
        let message = Interaction(
            request: .init(method: "POST", url: "http://h/rpc.Echo/Say", body: .init(Self.said, contentType: "application/proto")),
            response: .init(status: 200))
        let plain = Interaction(request: .init(method: "GET", url: "http://h/rpc.Echo/Say"), response: .init(status: 200))
        #expect(DescriptorSets.holdsMessages(message))
        #expect(!DescriptorSets.holdsMessages(plain))
        try withScratchTape { scratch in
            try Data("not a descriptor set".utf8).write(to: scratch.file("broken.protoset"))
            let folder = scratch.url
            #expect(DescriptorSets.schema(in: folder).problems.count == 1)
            #expect(
                DescriptorSets.names(for: CassetteDocument(interactions: [plain]), writtenTo: folder.appendingPathComponent("a.json"))
                    == nil)
            #expect(
                DescriptorSets.names(for: CassetteDocument(interactions: [message]), writtenTo: folder.appendingPathComponent("a.http"))
                    == nil)
        }
    }
}
