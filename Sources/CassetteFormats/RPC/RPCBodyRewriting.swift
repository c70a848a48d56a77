import Foundation

/// Changes the bytes inside a Connect or gRPC-Web body's messages and frames them again, so that
/// a change of length — a secret replaced by `[REDACTED]`, or put back on replay — keeps every
/// length prefix true: what redaction does to these bodies instead of changing their bytes
/// flat, which would leave a message's length saying what it no longer holds.
///
/// `change` is given one leaf at a time and returns its new bytes, or nil to keep them: each
/// text or bytes field of a protobuf message, each JSON, text or trailers payload, the bytes of
/// a cut envelope. A nested message is changed field by field, then given whole to `change`
/// too, so that a text that spans its fields is still found (the message is then kept as the
/// changed bytes). A compressed payload is kept as it is: nothing in it can be read.
package enum RPCBodyRewriting {
    /// `data` with `change` applied inside its messages, or nil when it is not a Connect or
    /// gRPC-Web body that reads in its framing (``RPCFraming``): then the caller changes it as bytes.
    package static func rewritten(_ data: Data, contentType: String?, _ change: (Data) -> Data?) -> Data? {
        guard let contentType, let read = RPCFraming(mediaType: Interaction.Body.mediaType(of: contentType))?.read(data) else {
            return nil
        }
        switch read {
        case .message(let fields):
            return changedWhole(ProtobufWire.encode(rewritten(fields, change)), change)
        case .envelopes(var framed):
            for index in framed.envelopes.indices where !framed.envelopes[index].isCompressed {
                framed.envelopes[index].payload = payload(framed.envelopes[index], change)
            }
            framed.rest = change(framed.rest) ?? framed.rest
            return framed.joined
        }
    }

    /// A payload: a protobuf message field by field, anything else (JSON, text, trailers) whole.
    private static func payload(_ envelope: RPCEnvelope, _ change: (Data) -> Data?) -> Data {
        if case .proto(let fields) = envelope.content {
            return changedWhole(ProtobufWire.encode(rewritten(fields, change)), change)
        }
        return change(envelope.payload) ?? envelope.payload
    }

    private static func rewritten(_ fields: [ProtobufWire.Field], _ change: (Data) -> Data?) -> [ProtobufWire.Field] {
        fields.map { field in
            guard case .delimited(let value) = field.value else { return field }
            let bytes: Data
            switch value {
            case .message(let inner): bytes = changedWhole(ProtobufWire.encode(rewritten(inner, change)), change)
            case .text, .bytes: bytes = change(value.data) ?? value.data
            }
            return ProtobufWire.Field(field.number, .delimited(.bytes(bytes)))
        }
    }

    /// `data`, or what `change` makes of it whole when something spans its fields.
    private static func changedWhole(_ data: Data, _ change: (Data) -> Data?) -> Data {
        change(data) ?? data
    }
}
