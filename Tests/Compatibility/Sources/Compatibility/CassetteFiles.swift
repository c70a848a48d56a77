import CassetteFormats
import Foundation

// Cassettes read, built and written in code (a hook, a fixture, a converter), as docs/JSONFormat.md
// and the Guide's "Cassettes in code" write them.

func buildingAnInteraction() -> Interaction {
    var headers = Interaction.Headers()
    headers.add("Set-Cookie", "a=1")
    headers.set("Content-Type", "application/json")
    headers["Cache-Control"] = "no-store"
    headers.remove("Set-Cookie")
    _ = (headers.contains("Date"), headers.values(for: "Content-Type"), headers.count, headers.isEmpty, headers.description)
    for field in headers.fields { _ = (field.name, field.values) }
    for (name, value) in headers { _ = (name, value) }
    _ = Interaction.Headers([(name: "Accept", value: "*/*")]) == ["Accept": "*/*"]

    let body = Interaction.Body(Data(#"{"id":42}"#.utf8), contentType: "application/json")
    _ = (body.data, body.text, body.isEmpty, body.description, body.writtenAsBase64, Interaction.Body.empty, Interaction.Body(text: "hi"))
    _ = body == Interaction.Body.empty
    var request = Interaction.Request(method: "POST", url: "https://api.example.com/users", headers: headers, body: body)
    request.method = "PUT"
    request.url = "https://api.example.com/users/42"
    request.headers = [:]
    request.body = .empty
    _ = Interaction.Request(url: URL(fileURLWithPath: "/"))

    var response = Interaction.Response(status: 200, url: nil, headers: ["Content-Type": "application/json"], body: body)
    response.status = 503
    response.url = "https://api.example.com/users/42"
    response.headers = [:]
    response.body = .init(text: "busy")
    let chunk = Interaction.StreamedBody.Chunk(at: 0.1, data: Data("data: hi\n\n".utf8))
    let event = Interaction.StreamedBody.Chunk(at: 0.2, event: ServerSentEvent(event: "message", id: "1", retry: nil, data: "hi"))
    _ = (chunk.at, chunk.data, event.event?.data, event.event?.event, event.event?.id, event.event?.retry, event.event?.description)
    let stream = Interaction.StreamedBody(chunks: [chunk, event])
    _ = (stream.chunks, stream.data)
    response.stream = Interaction.Response(status: 200, stream: stream).stream

    let challenge = Interaction.Challenge(
        method: "NSURLAuthenticationMethodHTTPBasic", realm: "api", answer: .useCredential, response: response)
    _ = (challenge.method, challenge.realm, challenge.answer, challenge.response)
    _ = [Interaction.Challenge.Answer.performDefaultHandling, .cancelAuthenticationChallenge, .rejectProtectionSpace]

    let timing = Interaction.Timing(firstByte: 0.05, duration: 0.08)
    _ = (timing.firstByte, timing.duration)
    let code = Interaction.TransportError.Code(name: "timedOut") ?? Interaction.TransportError.Code(rawValue: -1001)
    _ = (code.rawValue, code.name, code.description)
    _ = [Interaction.TransportError.Code.timedOut, .cancelled, .cannotConnectToHost, .cannotFindHost, .networkConnectionLost]
    _ = [Interaction.TransportError.Code.notConnectedToInternet, .secureConnectionFailed, .badServerResponse]
    let failure = Interaction.TransportError(code: .networkConnectionLost, afterBytes: 512)
    _ = (failure.code, failure.afterBytes)

    let messages: [Interaction.WebSocketMessage] = [
        .text("hello", from: .client, at: 0), Interaction.WebSocketMessage(from: .server, at: 0.1, kind: .binary, data: Data(), code: nil),
        .close(code: 1000, reason: "done", from: .server, at: 0.2),
    ]
    for message in messages { _ = (message.from, message.at, message.kind, message.data, message.code, message.text) }
    _ = [Interaction.WebSocketMessage.Kind.text, .ping, .pong, .close]
    let conversation = Interaction.WebSocketConversation(messages: messages)
    _ = conversation.messages

    var interaction = Interaction(
        recordedAt: Date(), request: request, challenges: [challenge], response: response, error: nil, timing: timing,
        latency: .fixed(firstByte: 1.5, duration: 1.5), webSocket: nil, scenario: "status 503")
    interaction.recordedAt = nil
    interaction.request = request
    interaction.challenges = []
    interaction.response = response
    interaction.error = failure
    interaction.timing = nil
    interaction.latency = nil
    interaction.webSocket = conversation
    interaction.scenario = nil
    return interaction
}

func readingAndWritingFiles(_ data: Data, path: String) throws -> Data {
    let format = CassetteFormat(path: path)
    _ = (format.fileExtension, format.description, [CassetteFormat.json, .httpMessages, .har])
    do {
        var document = try format.decode(data, file: path)
        document.interactions.append(buildingAnInteraction())
        document.metadata["apiVersion"] = "2024-06-01"
        document.schema = nil
        document.recordedWith = "Cassette"
        _ = CassetteDocument(schema: nil, recordedWith: nil, interactions: [], metadata: [:])
        _ = CassetteDocument(recordedWith: "Cassette", interactions: document.interactions)
        return try CassetteFormat.json.encode(document)
    } catch {
        for problem in error.problems {
            _ = (problem.message, problem.line, problem.column, problem.path?.components, problem.path?.description, problem.description)
        }
        _ = (error.file, error.description)
        throw error
    }
}

func latencies() -> [Latency] {
    let speeds: [DownloadSpeed] = [.gprs, .edge, .threeG, .threeGPlus, .wifi, DownloadSpeed(bytesPerSecond: 1_000_000)]
    for speed in speeds { _ = (speed.bytesPerSecond, speed.name, speed.description, speed == .wifi, speed.hashValue) }
    let latencies: [Latency] = [
        .recorded, .instant, .scaled(2), .fixed(firstByte: 0.1, duration: 0.2), .downloadSpeed(.threeG, firstByte: 0.1),
    ]
    _ = latencies.map(\.description)
    return latencies
}

func metadata() -> [String: MetadataValue] {
    let path: JSONPath = [.key("items"), .index(0)]
    _ = path.components
    let value: MetadataValue = ["version": 2, "ratio": 0.5, "name": "Ada", "ok": true, "tags": ["a"], "none": nil]
    let values: [MetadataValue] = [
        .null, .bool(true), .integer(1), .number(1.5), .numberLiteral("1.50"), .string("x"), .array([]), .object([:]),
    ]
    _ = (value.description, value.integerValue, value.stringValue, values)
    return ["build": value]
}
