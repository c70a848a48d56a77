import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A secret inside a Connect or gRPC-Web message is redacted inside that message: each length
/// prefix stays true, so the recording still reads as its messages, and a placeholder put back
/// on replay gives the exact bytes the server sent.
@Suite struct RPCRedactionTests {
    static let secret = "sk-live-8f2c91d0"
    static let contentType = "application/grpc-web+proto"

    /// `{ 1: "key sk-live-… ok", 2: { 1: "sk-live-…" }, 3: 42 }`, then trailers naming it too.
    static let body: Data = {
        let fields: [ProtobufWire.Field] = [
            .init(1, .delimited(.text("key \(secret) ok"))), .init(2, .delimited(.message([.init(1, .delimited(.text(secret)))]))),
            .init(3, .varint(42)),
        ]
        return RPCEnvelope(flags: 0, payload: ProtobufWire.encode(fields)).framed
            + RPCEnvelope(flags: 0x80, payload: Data("grpc-status: 0\r\ngrpc-message: \(secret)\r\n".utf8)).framed
    }()

    /// The messages of a body that must still frame exactly.
    static func messages(of data: Data) throws -> (fields: [ProtobufWire.Field], trailers: [String]) {
        let framed = RPCEnvelope.split(data)
        #expect(framed.rest.isEmpty && framed.envelopes.count == 2, "the envelopes still frame")
        let first = try #require(framed.envelopes.first)
        let last = try #require(framed.envelopes.last)
        let fields = try #require(ProtobufWire.decode(first.payload))
        let trailers = try #require(RPCTrailerLines.lines(of: last.payload))
        return (fields, trailers)
    }

    @Test func aLearnedSecretIsReplacedInsideEachMessageAndPutBackExactly() throws {
        // Replaced flat, the bytes would no longer frame: what this guards against.
        let flat = try #require(SecretScrubber(secrets: [Self.secret], with: "[REDACTED]").apply(Self.body))
        #expect(RPCEnvelope.split(flat).rest.isEmpty == false || RPCEnvelope.split(flat).envelopes.count != 2)

        let redacted = SecretScrubber(secrets: [Self.secret], with: "[REDACTED-1]")
            .applied(to: Interaction.Body(Self.body, contentType: Self.contentType), contentType: Self.contentType)
        #expect(!redacted.data.elementsEqual(Data(Self.secret.utf8)) && redacted.data.range(of: Data(Self.secret.utf8)) == nil)
        let (fields, trailers) = try Self.messages(of: redacted.data)
        #expect(
            fields == [
                .init(1, .delimited(.text("key [REDACTED-1] ok"))),
                .init(2, .delimited(.message([.init(1, .delimited(.text("[REDACTED-1]")))]))), .init(3, .varint(42)),
            ])
        #expect(trailers == ["grpc-status: 0", "grpc-message: [REDACTED-1]"])

        let restored = SecretScrubber(restoring: [("[REDACTED-1]", Self.secret)])
            .applied(to: redacted, contentType: Self.contentType)
        #expect(restored.data == Self.body)
    }

    @Test func aBodyPatternRedactsInsideEachMessage() throws {
        let rules = try RedactionRules.make(Redaction.default.redactingBodyMatches(#"sk-live-[0-9a-f]+"#))
        var secrets = FoundSecrets()
        let redacted = rules.redact(
            Interaction.Body(Self.body, contentType: Self.contentType), contentType: Self.contentType, secrets: &secrets)
        #expect(secrets.list == [Self.secret])
        let (fields, trailers) = try Self.messages(of: redacted.data)
        #expect(fields.first == .init(1, .delimited(.text("key [REDACTED] ok"))))
        #expect(trailers.last == "grpc-message: [REDACTED]")
    }

    /// Unary Connect: one message, no envelope, redacted the same way.
    @Test func aUnaryConnectMessageIsRedactedInsideItsFields() throws {
        let message = ProtobufWire.encode([.init(1, .delimited(.text(Self.secret))), .init(2, .varint(7))])
        let redacted = SecretScrubber(secrets: [Self.secret], with: "[REDACTED]")
            .applied(to: Interaction.Body(message, contentType: "application/proto"), contentType: "application/proto")
        #expect(ProtobufWire.decode(redacted.data) == [.init(1, .delimited(.text("[REDACTED]"))), .init(2, .varint(7))])
    }
}
