import Foundation

/// One message of a streaming Connect body or of any gRPC-Web body: a flags byte, a 4-byte
/// big-endian length, and that many bytes of payload (connectrpc.com/docs/protocol; gRPC's
/// PROTOCOL-WEB.md).
///
/// ```swift
/// let framed = RPCEnvelope.split(body)      // every envelope, and the bytes of a cut last one
/// framed.joined == body                     // always: the split keeps every byte
/// ```
package struct RPCEnvelope: Sendable, Hashable {
    /// The flags byte: ``compressed``, ``endOfStream`` (Connect), ``trailers`` (gRPC-Web).
    package var flags: UInt8
    /// The message's bytes: a protobuf or JSON message (compressed when ``isCompressed``), the
    /// end-of-stream JSON, or the trailers' header lines.
    package var payload: Data

    /// The payload is compressed with the stream's `connect-content-encoding` or `grpc-encoding`.
    package static let compressed: UInt8 = 0x01
    /// Connect: the last message, a JSON object with the call's error and trailers.
    package static let endOfStream: UInt8 = 0x02
    /// gRPC-Web: the trailers (`grpc-status`, `grpc-message`, …) as HTTP/1 header lines.
    package static let trailers: UInt8 = 0x80

    package init(flags: UInt8, payload: Data) {
        self.flags = flags
        self.payload = payload
    }

    package var isCompressed: Bool { flags & Self.compressed != 0 }

    /// The envelope as it goes on the wire.
    package var framed: Data {
        var out = Data(capacity: 5 + payload.count)
        out.append(flags)
        let length = UInt32(payload.count)
        for shift in [24, 16, 8, 0] as [UInt32] { out.append(UInt8(truncatingIfNeeded: length >> shift)) }
        out.append(payload)
        return out
    }

    /// What an envelope's payload holds, read one way for every reader: the cassette's JSON form,
    /// redaction, matching and the miss report.
    package enum Content: Sendable {
        /// gRPC-Web's trailers (flags ``trailers``): header lines without their CRLFs.
        case trailers([String])
        /// Connect's end of stream (flags ``endOfStream``): compact JSON.
        case endStream(JSONValue)
        /// A JSON message, written compactly (so that it is written back to the same bytes).
        case json(JSONValue)
        /// A protobuf message that is not compressed, field by field.
        case proto([ProtobufWire.Field])
        /// UTF-8 text that is none of the above.
        case text(String)
        /// Anything else: a compressed payload, bytes that read as nothing, an empty payload.
        case bytes(Data)
    }

    /// The payload, read as what it holds; every reading gives back the same bytes.
    package var content: Content {
        if flags == Self.trailers, let lines = RPCTrailerLines.lines(of: payload) { return .trailers(lines) }
        let json = Interaction.Body.isCompactJSON(payload) ? (try? JSONParser.parse(payload))?.value : nil
        if flags == Self.endOfStream, let json { return .endStream(json) }
        if payload.first == UInt8(ascii: "{") || payload.first == UInt8(ascii: "["), let json { return .json(json) }
        if !isCompressed, !payload.isEmpty, let fields = ProtobufWire.decode(payload) { return .proto(fields) }
        if Interaction.Body.isWritableAsText(payload) { return .text(String(decoding: payload, as: UTF8.self)) }
        return .bytes(payload)
    }

    /// A body cut into its envelopes, and what follows the last whole one.
    package struct Framed: Sendable, Hashable {
        package var envelopes: [RPCEnvelope]
        /// Bytes after the last whole envelope: a stream cut in the middle of one (its head, or
        /// less of its payload than the head announced). Empty for a whole stream.
        package var rest: Data

        package init(envelopes: [RPCEnvelope], rest: Data = Data()) {
            self.envelopes = envelopes
            self.rest = rest
        }

        /// The bytes: every envelope framed, then ``rest``.
        package var joined: Data {
            var out = Data()
            for envelope in envelopes { out.append(envelope.framed) }
            out.append(rest)
            return out
        }
    }

    /// `body` as envelopes, front to back; bytes that do not make a whole envelope are ``Framed/rest``.
    package static func split(_ body: Data) -> Framed {
        let bytes = [UInt8](body)
        var envelopes: [RPCEnvelope] = []
        var index = 0
        while bytes.count - index >= 5 {
            let length = bytes[index + 1..<index + 5].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count - index - 5 >= length else { break }
            envelopes.append(RPCEnvelope(flags: bytes[index], payload: Data(bytes[index + 5..<index + 5 + length])))
            index += 5 + length
        }
        return Framed(envelopes: envelopes, rest: Data(bytes[index...]))
    }
}
