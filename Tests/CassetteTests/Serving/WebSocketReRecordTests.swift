import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// Recording a WebSocket conversation again (mode `all`) through the tape's server: a conversation
/// that changed is written; one that did not leaves the file's bytes as they were. The upgrade
/// request and its `101` are the same each time (the server leaves out the key and accept
/// fields), so only the conversation tells them apart.
@Suite(.timingIsolated) struct WebSocketReRecordTests {
    /// Records one conversation in which the client says `say`, through a server in front of the
    /// loopback server's echo WebSocket, in `mode`; returns the server's report.
    @discardableResult
    static func record(
        _ scratch: ScratchTape, mode: RecordMode, say: [String], ignoring: IgnoredChanges = .default
    ) throws -> Tape.Report {
        let tape = try scratch.tape(mode: mode, options: Tape.Options(ignoredChanges: ignoring))
        let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
        let seen = try WebSocketServingTests.converse(port: server.port, say: say)
        #expect(seen.last?.message == .close(code: 1000, reason: "done"))
        return try tape.eject()
    }

    static func clientTexts(_ file: URL) throws -> [String] {
        let conversation = try #require(try CassetteFile.read(file).interactions.first?.webSocket)
        return conversation.messages.filter { $0.from == .client && $0.kind == .text }.compactMap(\.text)
    }

    @Test func aChangedConversationIsWrittenAndAnUnchangedOneLeavesTheBytes() throws {
        try withScratchTape { scratch in
            let first = (1...3).map { #"{"say":"hello \#($0)"}"# }
            let second = (1...3).map { #"{"say":"goodbye \#($0)"}"# }
            try Self.record(scratch, mode: .once, say: first)
            #expect(try Self.clientTexts(scratch.file) == first)

            try Self.record(scratch, mode: .all, say: second)
            #expect(try Self.clientTexts(scratch.file) == second, "the new conversation was dropped as unchanged")
            let echoes = try #require(try CassetteFile.read(scratch.file).interactions.first?.webSocket).messages
                .filter { $0.from == .server && $0.kind == .text }.compactMap(\.text)
            #expect(echoes.first == #"{"echo":{"say":"goodbye 1"},"n":1}"#)

            // Times may move on a loaded machine: a generous tolerance, so only the messages decide.
            var generous = IgnoredChanges.default
            generous.timingSeconds = 10
            let bytes = try Data(contentsOf: scratch.file)
            try Self.record(scratch, mode: .all, say: second, ignoring: generous)
            #expect(try Data(contentsOf: scratch.file) == bytes, "the same conversation recorded again rewrote the file")
        }
    }
}
