import Foundation

extension CassetteFormat {
    /// What goes wrong when `data` is read as `self` and written back: nil when it does not
    /// decode (an error, fine), or when it re-encodes in every format to something that decodes
    /// equal (the round-trip promise); otherwise, what broke. The fuzz targets (`Fuzz/`) trap on
    /// an answer, and `FuzzRegressionTests` runs the inputs they found through it.
    package func roundTripProblem(of data: Data) -> String? {
        guard let document = try? decode(data, file: "input") else { return nil }
        for format in CassetteFormat.allCases {
            let encoded: Data
            do {
                encoded = try format.encode(document)
            } catch {
                return "decoded as \(self), but \(format) cannot encode it: \(error)"
            }
            let decoded: CassetteDocument
            do {
                decoded = try format.decode(encoded)
            } catch {
                return "decoded as \(self); \(format) wrote what it cannot read: \(error)"
            }
            // Only JSON holds a `$schema` (CassetteDocument.schema): the other formats leave it out.
            var expected = document
            if format != .json { expected.schema = nil }
            if decoded != expected {
                return "decoded as \(self); \(format) changed it:\n\(expected)\n\(decoded)"
            }
        }
        return nil
    }
}

extension ProtobufSchema {
    /// What goes wrong when `data`, read as a `FileDescriptorSet`, names the JSON cassette of a
    /// call to each of its methods (the first four) that sends and answers `message`, unary and
    /// enveloped: nil when `data` is no descriptor set, or when each cassette reads back equal to
    /// what was written (names change no byte); otherwise, what broke. The `descriptor_sets` fuzz
    /// target traps on an answer.
    package static func namingProblem(ofDescriptorSet data: Data, message: Data) -> String? {
        guard let schema = try? ProtobufSchema(descriptorSet: data) else { return nil }
        let enveloped = RPCEnvelope(flags: 0, payload: message).framed
        for path in schema.methods.keys.sorted().prefix(4) {
            for (contentType, body) in [("application/proto", message), ("application/grpc-web+proto", enveloped)] {
                let headers: Interaction.Headers = ["Content-Type": contentType]
                let document = CassetteDocument(interactions: [
                    Interaction(
                        request: .init(
                            method: "POST", url: "https://api.example.com/" + path, headers: headers,
                            body: .init(body, contentType: contentType)),
                        response: .init(status: 200, headers: headers, body: .init(body, contentType: contentType)))
                ])
                // A method whose name makes no URL is no cassette to write.
                guard let written = try? JSONCassetteCodec.encode(document, names: schema) else { continue }
                do {
                    let read = try JSONCassetteCodec.decode(written)
                    if read != document {
                        return "named by the set, \(path)'s \(contentType) call read back changed:\n\(document)\n\(read)"
                    }
                } catch {
                    return "named by the set, \(path)'s \(contentType) call was written as what cannot be read: \(error)"
                }
            }
        }
        return nil
    }
}
