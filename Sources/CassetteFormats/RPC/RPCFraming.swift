import Foundation

/// How a Connect or gRPC-Web body carries its messages, from its media type.
///
/// | media type | framing |
/// | --- | --- |
/// | `application/proto` (unary Connect) | ``message``: the body is one protobuf message |
/// | `application/connect+proto`, `application/connect+json` (streaming Connect) | ``envelopes`` |
/// | `application/grpc-web`, `application/grpc-web+proto`, `application/grpc-web+json` | ``envelopes`` |
/// | `application/grpc`, `application/grpc+proto`, `application/grpc+json` | ``envelopes`` |
///
/// Unary Connect with `application/json` is plain JSON, which a cassette already shows as JSON;
/// `application/grpc-web-text` is base64 text, kept as text.
package enum RPCFraming: Sendable, Hashable {
    /// One protobuf message, no envelope.
    case message
    /// A sequence of ``RPCEnvelope``s.
    case envelopes

    /// The framing of a body of `mediaType` (lowercased, without parameters), or nil for any other.
    package init?(mediaType: String) {
        switch mediaType {
        case "application/proto":
            self = .message
        case "application/connect+proto", "application/connect+json", "application/grpc-web", "application/grpc-web+proto",
            "application/grpc-web+json", "application/grpc", "application/grpc+proto", "application/grpc+json":
            self = .envelopes
        default:
            return nil
        }
    }

    /// Whether `data` reads exactly in this framing: a non-empty canonical protobuf message, or
    /// at least one whole envelope.
    package func reads(_ data: Data) -> Bool {
        read(data) != nil
    }

    /// A body read in a framing.
    package enum Read {
        case message([ProtobufWire.Field])
        case envelopes(RPCEnvelope.Framed)
    }

    /// `data` read in this framing, or nil when it does not read exactly (``reads(_:)``).
    package func read(_ data: Data) -> Read? {
        switch self {
        case .message:
            guard !data.isEmpty, let fields = ProtobufWire.decode(data) else { return nil }
            return .message(fields)
        case .envelopes:
            let framed = RPCEnvelope.split(data)
            return framed.envelopes.isEmpty ? nil : .envelopes(framed)
        }
    }
}
