import CassetteFormats
import Foundation
import Testing

/// Envelopes as Connect streams and gRPC-Web bodies frame them: split and joined back to the
/// same bytes, a cut stream's last bytes kept.
@Suite struct RPCEnvelopeTests {
    static let message = RPCEnvelope(flags: 0, payload: ProtobufWireTests.bytes("08 96 01"))
    static let trailers = RPCEnvelope(flags: RPCEnvelope.trailers, payload: Data("grpc-status: 0\r\ngrpc-message: \r\n".utf8))

    @Test func anEnvelopeIsItsFlagsItsLengthAndItsPayload() {
        #expect(Self.message.framed == ProtobufWireTests.bytes("00 00 00 00 03 08 96 01"))
        #expect(Self.trailers.framed.prefix(5) == ProtobufWireTests.bytes("80 00 00 00 20"))
        #expect(
            RPCEnvelope(flags: RPCEnvelope.endOfStream, payload: Data("{}".utf8)).framed == ProtobufWireTests.bytes("02 00 00 00 02 7b 7d"))
        #expect(RPCEnvelope(flags: 1, payload: Data()).isCompressed)
    }

    @Test func aWholeStreamSplitsIntoItsEnvelopes() {
        let body = Self.message.framed + RPCEnvelope(flags: 0, payload: Data()).framed + Self.trailers.framed
        let framed = RPCEnvelope.split(body)
        #expect(framed == RPCEnvelope.Framed(envelopes: [Self.message, RPCEnvelope(flags: 0, payload: Data()), Self.trailers]))
        #expect(framed.joined == body)
        #expect(RPCEnvelope.split(Data()) == RPCEnvelope.Framed(envelopes: []))
    }

    /// A stream cut in an envelope's head or payload keeps the bytes it had as the rest.
    @Test(arguments: [3, 5, 7])
    func aCutStreamKeepsItsLastBytes(cut: Int) {
        let body = Self.message.framed + Self.message.framed.prefix(cut)
        let framed = RPCEnvelope.split(body)
        #expect(framed.envelopes == [Self.message])
        #expect(framed.rest == Self.message.framed.prefix(cut))
        #expect(framed.joined == body)
    }

    /// A length no body could hold is the rest, not a crash or a huge allocation.
    @Test func anImpossibleLengthIsTheRest() {
        let body = ProtobufWireTests.bytes("00 ff ff ff ff 01 02")
        #expect(RPCEnvelope.split(body) == RPCEnvelope.Framed(envelopes: [], rest: body))
    }

    /// The inputs kept for the `rpc_messages` fuzz target (`Fuzz/Regressions`) pass its checks
    /// here too, and read as they were written.
    @Test func theFuzzTargetsKeptInputs() throws {
        let folder = Paths.packageRoot.appendingPathComponent("Fuzz/Regressions/rpc_messages")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 3)
        var read: [String: RPCEnvelope.Framed] = [:]
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let framed = RPCEnvelope.split(data)
            #expect(framed.joined == data, "\(name)")
            for payload in [data] + framed.envelopes.map(\.payload) {
                if let fields = ProtobufWire.decode(payload) { #expect(ProtobufWire.encode(fields) == payload, "\(name)") }
            }
            read[name] = framed
        }
        let stream = try #require(read["grpc-web-stream"])
        #expect(stream.envelopes.map(\.flags) == [0, 0, RPCEnvelope.trailers] && stream.rest.isEmpty)
        #expect(
            ProtobufWire.decode(stream.envelopes[0].payload)
                == [.init(1, .delimited(.text("hello"))), .init(2, .delimited(.message([.init(1, .varint(150))])))])
        #expect(read["connect-cut-stream"]?.envelopes.count == 1 && read["connect-cut-stream"]?.rest.count == 9)
        #expect(ProtobufWire.decode(try Data(contentsOf: folder.appendingPathComponent("overlong-varint"))) == nil)
    }
}
