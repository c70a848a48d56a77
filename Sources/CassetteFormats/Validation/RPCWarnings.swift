import Foundation

extension CassetteDocument {
    /// What a Connect or gRPC-Web client would not take from a replayed response, with the JSON
    /// path of each: a gRPC-Web response without a final status (`grpc-status` in a trailers
    /// envelope, or in the headers of a response with no message), a Connect stream that does
    /// not end with its end-of-stream message, a status or an error code outside the protocol's,
    /// and a stream whose last envelope is cut short (replayed cut, as recorded). Responses that
    /// failed with a transport error are not looked at: they have no status to give.
    package func rpcWarnings() -> [CassetteFormatError.Problem] {
        var warnings: [CassetteFormatError.Problem] = []
        for (i, interaction) in interactions.enumerated() {
            guard interaction.error == nil, let response = interaction.response,
                let contentType = response.headers["Content-Type"].map(Interaction.Body.mediaType(of:)),
                RPCFraming(mediaType: contentType) == .envelopes
            else { continue }
            let path = JSONPath([.key("interactions"), .index(i), .key("response"), .key("body")])
            func warn(_ message: String) { warnings.append(.init(path: path, message: message)) }
            let framed = RPCEnvelope.split(response.body.data)
            if !framed.rest.isEmpty {
                warn(
                    "the body ends \(framed.rest.count) bytes into an envelope that is not whole: a replay delivers it cut, as "
                        + "it was recorded; if that is not the scenario, remove the \"cut\" bytes")
            }
            let last = framed.envelopes.last
            if contentType.hasPrefix("application/connect+") {
                guard let last, last.flags & RPCEnvelope.endOfStream != 0 else {
                    warn("a Connect stream ends with its end-of-stream message (\"endStream\"); a client reports this call as failed")
                    continue
                }
                if let problem = Self.connectEndProblem(last.payload) { warn(problem) }
            } else {
                let trailers = last.flatMap { $0.flags & RPCEnvelope.trailers != 0 ? RPCTrailerLines.lines(of: $0.payload) : nil }
                let status = trailers.flatMap(Self.grpcStatus(in:)) ?? response.headers["grpc-status"]
                guard let status else {
                    warn(
                        "a gRPC call ends with its status: a trailers envelope with \"grpc-status: 0\" (or the code of its "
                            + "failure), or grpc-status in the headers of a response with no message; a client reports this call as failed")
                    continue
                }
                if Int(status).flatMap(RPCStatusCode.init(number:)) == nil {
                    warn("grpc-status is \(CassetteRules.quoted(status)), not a gRPC status code (0 to 16)")
                }
            }
        }
        return warnings
    }

    /// The value of `grpc-status` among trailer lines.
    private static func grpcStatus(in lines: [String]) -> String? {
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "grpc-status" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// What is wrong with a Connect end-of-stream message: not a JSON object, or an error whose
    /// code Connect does not name.
    private static func connectEndProblem(_ payload: Data) -> String? {
        guard let node = try? JSONParser.parse(payload), case .object = node.value else {
            return "a Connect end-of-stream message is a JSON object ({} when the call succeeded)"
        }
        guard let error = node.memberValue("error") else { return nil }
        guard let code = error.memberValue("code")?.value.stringValue, RPCStatusCode(connectName: code) != nil else {
            let names = RPCStatusCode.names.dropFirst().joined(separator: ", ")
            let found = error.memberValue("code").map { String(decoding: JSONWriter.compact($0.value), as: UTF8.self) } ?? "none"
            return "a Connect error's \"code\" is one of \(names); found \(found)"
        }
        return nil
    }
}
