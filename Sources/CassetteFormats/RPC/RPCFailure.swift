import Foundation

/// How a Connect or gRPC-Web call says it failed, in its protocol's own encoding: what
/// `cassette fault --rpc-status` writes in place of a recorded answer.
///
/// | protocol | the failure |
/// | --- | --- |
/// | gRPC-Web | status 200, a body of one trailers envelope: `grpc-status: 14`, `grpc-message: …` (percent-encoded) |
/// | Connect stream | status 200, a body of one end-of-stream envelope: `{"error":{"code":"unavailable","message":"…"}}` |
/// | unary Connect | the code's HTTP status (503), `application/json`: `{"code":"unavailable","message":"…"}` |
package enum RPCFailure {
    /// The protocol of a call.
    package enum CallProtocol: Sendable, Hashable {
        case grpcWeb
        case connectStream
        case connectUnary
    }

    /// The protocol of the call `request` made and `response` answers (by the response's
    /// `Content-Type`, else the request's; a unary Connect call with JSON by its
    /// `Connect-Protocol-Version` header); nil for any other request.
    package static func callProtocol(of request: Interaction.Request, _ response: Interaction.Response?) -> CallProtocol? {
        let declared = response?.headers["Content-Type"] ?? request.headers["Content-Type"]
        guard let mediaType = declared.map(Interaction.Body.mediaType(of:)) else { return nil }
        if mediaType.hasPrefix("application/grpc-web") || mediaType == "application/grpc" || mediaType.hasPrefix("application/grpc+") {
            return .grpcWeb
        }
        if mediaType.hasPrefix("application/connect+") { return .connectStream }
        if mediaType == "application/proto" { return .connectUnary }
        if Interaction.Body.isJSONMediaType(mediaType), request.headers["Connect-Protocol-Version"] != nil { return .connectUnary }
        return nil
    }

    /// `response` (or a new one) answering with `code` and `message` as `callProtocol` sends a
    /// failure; its other header fields kept, `Content-Length` following the body when it had one.
    /// `ok` is a failure only gRPC-Web can write (a status with no message): nil for Connect.
    package static func response(
        _ code: RPCStatusCode, message: String?, callProtocol: CallProtocol, replacing response: Interaction.Response?
    ) -> Interaction.Response? {
        var answer = response ?? Interaction.Response(status: 200)
        let body: Data
        switch callProtocol {
        case .grpcWeb:
            var lines = ["grpc-status: \(code.number)"]
            if let message { lines.append("grpc-message: \(percentEncoded(message))") }
            body = RPCEnvelope(flags: RPCEnvelope.trailers, payload: RPCTrailerLines.payload(of: lines)).framed
            answer.status = 200
        case .connectStream:
            guard code.number != 0 else { return nil }
            body =
                RPCEnvelope(
                    flags: RPCEnvelope.endOfStream, payload: Data(JSONWriter.compact(.object([member("error", error(code, message))])))
                ).framed
            answer.status = 200
        case .connectUnary:
            guard code.number != 0 else { return nil }
            body = Data(JSONWriter.compact(error(code, message)))
            answer.status = code.httpStatus
            answer.headers.set("Content-Type", "application/json")
        }
        answer.body = Interaction.Body(body, contentType: answer.headers["Content-Type"])
        if answer.headers["Content-Length"] != nil { answer.headers.set("Content-Length", String(body.count)) }
        return answer
    }

    /// `{"code":"unavailable","message":"…"}`.
    private static func error(_ code: RPCStatusCode, _ message: String?) -> JSONValue {
        var members = [member("code", .string(code.connectName))]
        if let message { members.append(member("message", .string(message))) }
        return .object(members)
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, value: JSONNode(value))
    }

    /// `grpc-message` as gRPC sends it: printable ASCII but `%` as is, every other byte of the
    /// UTF-8 as `%XX` (grpc/grpc's doc/PROTOCOL-HTTP2.md).
    package static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (0x20...0x7E).contains(byte), byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
