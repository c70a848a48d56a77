import Foundation

// The fuzz targets, one executable for all (Fuzz/run builds it once): CASSETTE_FUZZ_TARGET picks
// the target. libFuzzer calls LLVMFuzzerTestOneInput with each input; a trap is a bug found.

/// Each target: decode or throw, never crash; what decodes must round-trip (FuzzCheck.swift).
let targets: [String: (Data) -> Void] = [
    "decode_json": { data in
        fuzzDecode(data, as: .json)
        fuzzCompactBodies(data)
    },
    "decode_http": { data in
        fuzzDecode(data, as: .httpMessages)
        _ = try? HTTPMessageCassetteCodec.decodeResponse(data)  // Stubs' `.httpMessage` reader
    },
    "decode_har": { fuzzDecode($0, as: .har) },
    // A multipart body (its boundary from the body itself): parse or throw; a canonical one is
    // written back to the same bytes, and a request carrying it round-trips through every format.
    "multipart": { data in
        _ = try? Multipart.parse(data, contentType: "multipart/form-data; boundary=fuzz")
        guard let parsed = try? Multipart.parse(data, contentType: nil) else { return }
        if Multipart.canonical(data, contentType: nil) != nil, parsed.serialized() != data {
            preconditionFailure("a canonical multipart body was not written back to its bytes")
        }
        let contentType = "multipart/form-data; boundary=\"\(parsed.boundary)\""
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(
                    method: "POST", url: "https://fuzz.example/upload", headers: ["Content-Type": contentType],
                    body: .init(data, contentType: contentType)),
                response: .init(status: 204))
        ])
        // An invalid document (a control character in the boundary) is refused by the writer.
        if let json = try? JSONCassetteCodec.encode(document) { fuzzDecode(json, as: .json) }
    },
    // WebSocket frames as a connection delivers them: the first byte picks the reader's role and
    // how the rest is cut into reads. Every message read must come back the same when written as a
    // frame and read again; a broken rule must name a close code that may be sent.
    "websocket_frames": { data in
        guard let first = data.first else { return }
        let role: WebSocketFrameReader.Role = first & 1 == 0 ? .server : .client
        var reader = WebSocketFrameReader(role: role, maximumMessageSize: 65_536)
        let piece = Int(first >> 1) + 1
        var rest = data.dropFirst()
        do throws(WebSocketFrameReader.Failure) {
            while !rest.isEmpty {
                reader.append(Data(rest.prefix(piece)))
                rest = rest.dropFirst(piece)
                while let message = try reader.next() { fuzzRoundTrip(message, readBy: role) }
            }
        } catch {
            if !WebSocketCloseCode.isSendable(error.code) { preconditionFailure("close code \(error.code) may not be sent") }
        }
    },
    // A rules file's body pattern, then a newline, then a body: a pattern compiles or is refused
    // with a reason, and matching never runs far past its budget (a pattern that backtracks without
    // end is stopped), so no rules file can hang a server thread.
    "body_patterns": { data in
        let input = String(decoding: data, as: UTF8.self)
        guard let newline = input.firstIndex(of: "\n") else { return }
        fuzzBodyPattern(String(input[..<newline]), on: String(input[input.index(after: newline)...]))
    },
    // A Connect or gRPC-Web body: its envelopes join back to its bytes, and every payload (and
    // the whole body, as unary Connect sends one message) that reads as protobuf is written back
    // to the same bytes.
    "rpc_messages": { data in
        let framed = RPCEnvelope.split(data)
        if framed.joined != data { preconditionFailure("the envelopes did not join back to the body's bytes") }
        for payload in [data] + framed.envelopes.map(\.payload) {
            if let fields = ProtobufWire.decode(payload), ProtobufWire.encode(fields) != payload {
                preconditionFailure("a protobuf message read was not written back to its bytes")
            }
        }
    },
    // A FileDescriptorSet: read or refused, never a trap; one that reads names the cassette of a
    // call to each of its methods carrying the input itself as its message, and that cassette
    // reads back to the same bytes.
    "descriptor_sets": { data in
        if let problem = ProtobufSchema.namingProblem(ofDescriptorSet: data, message: data) { preconditionFailure(problem) }
    },
    // The first byte picks the format (0 JSON, 1 HTTP messages, 2 HAR), the rest is decoded as it.
    "round_trip": { data in
        guard let first = data.first else { return }
        let formats = CassetteFormat.allCases
        fuzzDecode(data.dropFirst(), as: formats[Int(first) % formats.count])
    },
]

let target: (Data) -> Void = {
    let name = ProcessInfo.processInfo.environment["CASSETTE_FUZZ_TARGET"] ?? ""
    guard let target = targets[name] else {
        preconditionFailure("set CASSETTE_FUZZ_TARGET to one of \(targets.keys.sorted().joined(separator: ", ")), not \"\(name)\"")
    }
    return target
}()

/// libFuzzer's entry point: runs the target `CASSETTE_FUZZ_TARGET` names on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    target(Data(bytes: bytes, count: count))
    return 0
}
