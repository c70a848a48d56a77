import Foundation

/// A body read by what it is: form fields, a JSON value, multipart parts, or bytes — the one
/// reading of a body by its `Content-Type` that matching (``RequestMatching``), the miss report,
/// `cassette diff`, `cassette check --live` and `cassette view` share, so that a body is JSON (or
/// a form) to every one of them alike.
///
/// A Connect or gRPC-Web body (``RPCFraming``) is read in its framing when it reads exactly:
/// one protobuf message, or envelopes; a streaming Connect `application/connect+json` body too.
///
/// A JSON body has a JSON media type (`application/json`, `…+json`), or no `Content-Type` and an
/// object or array; a JSON media type on bytes that do not parse is bytes.
package enum BodyContent {
    /// An `application/x-www-form-urlencoded` body, by its fields.
    case form([FormFields.Field])
    /// A JSON body, by meaning.
    case json(JSONValue)
    /// A `multipart/form-data` body, by its parts (see ``RequestMatching``).
    case multipart(Multipart)
    /// Anything else, byte for byte.
    case bytes(Data)
    /// A unary Connect body (`application/proto`): one protobuf message, field by field.
    case protobuf([ProtobufWire.Field])
    /// A Connect stream or gRPC-Web body (``RPCFraming/envelopes``), envelope by envelope.
    case envelopes(RPCEnvelope.Framed)
    /// A body whose `Content-Type` says multipart but which does not parse as multipart:
    /// compared byte for byte, and the miss report says why.
    case notMultipart(Data, Multipart.ParseError)

    /// The request's body, by its `Content-Type`.
    init(of request: Interaction.Request) {
        self.init(request.body.data, contentType: request.headers["Content-Type"])
    }

    /// The response's body (a stream's chunks together), by its `Content-Type`.
    init(of response: Interaction.Response) {
        self.init(response.body.data, contentType: response.headers["Content-Type"])
    }

    package init(_ data: Data, contentType declared: String?) {
        // Most requests have neither a body nor a Content-Type: nothing to read.
        if data.isEmpty, declared == nil {
            self = .bytes(data)
            return
        }
        let contentType = declared?.lowercased() ?? ""
        if contentType.containsBytes("application/x-www-form-urlencoded"), UTF8Validation.isValid(data) {
            self = .form(FormFields.parse(String(decoding: data, as: UTF8.self)))
            return
        }
        if contentType.containsBytes("multipart"), Multipart.isFormData(contentType: contentType) {
            do {
                // The boundary is case-sensitive: parsed from the field as written.
                self = .multipart(try Multipart.parse(data, contentType: declared))
            } catch {
                self = .notMultipart(data, error)
            }
            return
        }
        if contentType.containsBytes("proto") || contentType.containsBytes("grpc") || contentType.containsBytes("connect+"),
            let read = RPCFraming(mediaType: Interaction.Body.mediaType(of: contentType))?.read(data)
        {
            switch read {
            case .message(let fields): self = .protobuf(fields)
            case .envelopes(let framed): self = .envelopes(framed)
            }
            return
        }
        let looksLikeJSON =
            contentType.containsBytes("json")
            || (contentType.isEmpty && data.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } == true)
        if looksLikeJSON, !data.isEmpty, let node = try? JSONParser.parse(data) {
            self = .json(node.value)
            return
        }
        self = .bytes(data)
    }

    /// The JSON value, when the body is JSON.
    var json: JSONValue? {
        if case .json(let value) = self { return value }
        return nil
    }
}
