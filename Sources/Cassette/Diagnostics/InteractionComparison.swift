import Foundation

/// The one comparison of two interactions: every difference between them, each at its place
/// (``InteractionDifference``) — the request, the response (status, URL, header fields, the body
/// by what it is), the error, the timing, the latency written by hand, the scenario mark, a
/// stream's chunks and their times, a WebSocket conversation message by message, and `recordedAt`.
///
/// It lists; it does not judge. Re-recording filters the list with ``IgnoredChanges`` (dates,
/// ids, timing within a tolerance) to decide whether a stored interaction is kept; `cassette diff`
/// shows the filtered list; `cassette check --live` keeps the places that change what a client
/// does. The request is compared by the same function that explains a miss
/// (``RequestDifference/between(_:_:rules:)``), with every part compared.
///
/// Every stored member of ``Interaction`` is compared here: `InteractionComparisonTests` changes
/// each member of the canonical every-member cassette in turn, and fails for a member that has no
/// place below (a member added later included: the test enumerates members by reflection).
package enum InteractionComparison {
    /// How far bodies are compared.
    package enum Depth: Sendable {
        /// Every value and byte.
        case values
        /// The structure: a JSON body's members and types (``JSONDiff/changes(from:to:values:limit:)``
        /// without values), any other body's size. What a live server is held to, whose ids and
        /// counts differ every time.
        case structure
    }

    /// Every difference from `old` to `new`, in the order of an interaction's members.
    package static func differences(from old: Interaction, to new: Interaction, depth: Depth = .values) -> [InteractionDifference] {
        var found: [InteractionDifference] = []
        note(.recordedAt, old.recordedAt, new.recordedAt, shown: shown, into: &found)
        found += requestDifferences(old.request, new.request)
        found += challengeDifferences(old.challenges, new.challenges)
        switch (old.response, new.response) {
        case (nil, nil): break
        case (let a?, let b?): found += responseDifferences(a, b, depth: depth)
        case (let a, let b): note(.response, a?.status, b?.status, shown: { "status \($0)" }, into: &found)
        }
        note(.error, old.error, new.error, shown: shown, into: &found)
        switch (old.timing, new.timing) {
        case (nil, nil): break
        case (let a?, let b?):
            time(.firstByte, a.firstByte, b.firstByte, into: &found)
            time(.duration, a.duration, b.duration, into: &found)
        case (let a, let b): note(.timing, a, b, shown: shown, into: &found)
        }
        note(.latency, old.latency, new.latency, shown: shown, into: &found)
        note(.scenario, old.scenario, new.scenario, shown: { $0 }, into: &found)
        found += conversationDifferences(old.webSocket, new.webSocket)
        return found
    }

    /// Notes a difference when the values differ (compared as values, never as shown: two long
    /// texts shown alike still differ).
    private static func note<Value: Equatable>(
        _ place: InteractionDifference.Place, _ a: Value?, _ b: Value?, shown: (Value) -> String,
        into found: inout [InteractionDifference]
    ) {
        guard a != b else { return }
        found.append(InteractionDifference(place, old: a.map(shown), new: b.map(shown)))
    }

    // MARK: Request

    /// The request's differences, as the miss report finds them with every part compared (all
    /// header fields, the exact origin, multipart part order), and whatever else differs in how
    /// it is written (a method's case, a URL's spelling, the order of header fields, a body's bytes).
    package static func requestDifferences(_ old: Interaction.Request, _ new: Interaction.Request) -> [InteractionDifference] {
        guard old != new else { return [] }
        var rules = RequestMatching.default.comparingMultipartPartOrder()
        rules.headers = fieldNames(old.headers, new.headers)
        let differences = RequestDifference.between(new, old, rules: rules)
        var found = differences.map {
            InteractionDifference($0.messageField.map { .requestMessage($0) } ?? .request($0.field), old: $0.recorded, new: $0.requested)
        }
        func covered(_ part: (RequestDifference.Field) -> Bool) -> Bool { differences.contains { part($0.field) } }
        if old.method != new.method, !covered({ $0 == .method }) {
            found.append(InteractionDifference(.request(.method), old: old.method, new: new.method))
        }
        if old.url != new.url, !covered(isURLPart) {
            found.append(InteractionDifference(.requestURL, old: old.url, new: new.url))
        }
        if old.headers != new.headers, !covered(isHeader) {
            found.append(InteractionDifference(.requestHeaders, old: shown(old.headers), new: shown(new.headers)))
        }
        if old.body != new.body, !covered(isBodyPart) {
            found.append(InteractionDifference(.request(.body), old: shown(old.body.data), new: shown(new.body.data)))
        }
        return found
    }

    /// The names of both messages' header fields, each once (any case), in first-appearance order.
    private static func fieldNames(_ a: Interaction.Headers, _ b: Interaction.Headers) -> [String] {
        var names: [String] = []
        for field in a.fields + b.fields where !names.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
            names.append(field.name)
        }
        return names
    }

    private static func isURLPart(_ field: RequestDifference.Field) -> Bool {
        switch field {
        case .origin, .path, .query: return true
        default: return false
        }
    }

    private static func isHeader(_ field: RequestDifference.Field) -> Bool {
        if case .header = field { return true }
        return false
    }

    private static func isBodyPart(_ field: RequestDifference.Field) -> Bool {
        switch field {
        case .json, .formField, .multipartPart, .body: return true
        default: return false
        }
    }

    // MARK: Response

    private static func responseDifferences(
        _ old: Interaction.Response, _ new: Interaction.Response, depth: Depth
    ) -> [InteractionDifference] {
        var found: [InteractionDifference] = []
        note(.status, old.status, new.status, shown: String.init, into: &found)
        note(.responseURL, old.url, new.url, shown: { $0 }, into: &found)
        let before = found.count
        for name in fieldNames(old.headers, new.headers) {
            let a = old.headers.values(for: name)
            let b = new.headers.values(for: name)
            note(
                .responseHeader(name), a.isEmpty ? nil : a, b.isEmpty ? nil : b, shown: { $0.joined(separator: ", ") }, into: &found)
        }
        if found.count == before, old.headers != new.headers {
            note(.responseHeaders, old.headers, new.headers, shown: shown, into: &found)
        }
        found += bodyDifferences(old, new, depth: depth)
        found += streamDifferences(old.stream, new.stream, sameBody: old.body.data == new.body.data)
        return found
    }

    /// A JSON body path by path (the same bytes otherwise written are one difference at the body);
    /// any other body as its size and a hash.
    private static func bodyDifferences(_ old: Interaction.Response, _ new: Interaction.Response, depth: Depth) -> [InteractionDifference] {
        let (a, b) = (old.body.data, new.body.data)
        guard a != b else { return [] }
        if let x = BodyContent(of: old).json, let y = BodyContent(of: new).json {
            let changes = JSONDiff.changes(from: x, to: y, values: depth == .values, limit: .max)
            if changes.isEmpty, depth == .values {
                // Bytes a client gets all the same: what re-recording writes.
                return [
                    InteractionDifference(
                        .responseBody(nil), old: "\(a.count) bytes", new: "\(b.count) bytes, the same JSON written otherwise")
                ]
            }
            if !changes.isEmpty || depth == .structure {
                return changes.map { change in
                    let place = InteractionDifference.Place.responseBody(change.path)
                    switch change.kind {
                    case .added(let value): return InteractionDifference(place, old: nil, new: value)
                    case .removed(let value): return InteractionDifference(place, old: value, new: nil)
                    case .value(let x, let y): return InteractionDifference(place, old: x, new: y)
                    case .type(let x, let y): return InteractionDifference(place, old: x, new: y)
                    }
                }
            }
        }
        if depth == .structure {
            return a.count == b.count ? [] : [InteractionDifference(.responseBody(nil), old: "\(a.count) bytes", new: "\(b.count) bytes")]
        }
        return [InteractionDifference(.responseBody(nil), old: shown(a), new: shown(b))]
    }

    /// The chunks: how many, when each arrived, and — when the whole bodies are the same — where
    /// they were cut.
    private static func streamDifferences(
        _ old: Interaction.StreamedBody?, _ new: Interaction.StreamedBody?, sameBody: Bool
    ) -> [InteractionDifference] {
        switch (old, new) {
        case (nil, nil): return []
        case (let a?, let b?):
            var found: [InteractionDifference] = []
            if a.chunks.count != b.chunks.count {
                found.append(InteractionDifference(.stream, old: chunks(a), new: chunks(b)))
            }
            for (index, (x, y)) in zip(a.chunks, b.chunks).enumerated() {
                if sameBody, x.data != y.data {
                    found.append(InteractionDifference(.streamChunk(index), old: shown(x.data), new: shown(y.data)))
                }
                time(.streamChunkTime(index), x.at, y.at, into: &found)
            }
            return found
        case (let a, let b):
            return [InteractionDifference(.stream, old: a.map(chunks) ?? "one piece", new: b.map(chunks) ?? "one piece")]
        }
    }

    private static func chunks(_ stream: Interaction.StreamedBody) -> String {
        "\(stream.chunks.count) chunk\(stream.chunks.count == 1 ? "" : "s")"
    }

    // MARK: Challenges

    /// Challenge by challenge: what the delegate was asked, its answer, and the challenged
    /// response compared as the interaction's response is.
    private static func challengeDifferences(_ old: [Interaction.Challenge], _ new: [Interaction.Challenge]) -> [InteractionDifference] {
        var found: [InteractionDifference] = []
        note(.challenges, old.count, new.count, shown: { "\($0) challenge\($0 == 1 ? "" : "s")" }, into: &found)
        for (index, (a, b)) in zip(old, new).enumerated() {
            note(.challenge(index, .method), a.method, b.method, shown: { $0 }, into: &found)
            note(.challenge(index, .realm), a.realm, b.realm, shown: { $0 }, into: &found)
            note(.challenge(index, .answer), a.answer, b.answer, shown: \.rawValue, into: &found)
            for difference in responseDifferences(a.response, b.response, depth: .values) {
                var inside = difference
                inside.place = .challengeResponse(index, difference.place)
                found.append(inside)
            }
        }
        return found
    }

    // MARK: WebSocket

    private static func conversationDifferences(
        _ old: Interaction.WebSocketConversation?, _ new: Interaction.WebSocketConversation?
    ) -> [InteractionDifference] {
        func count(_ conversation: Interaction.WebSocketConversation) -> String {
            "\(conversation.messages.count) message\(conversation.messages.count == 1 ? "" : "s")"
        }
        switch (old, new) {
        case (nil, nil): return []
        case (let a?, let b?):
            var found: [InteractionDifference] = []
            if a.messages.count != b.messages.count {
                found.append(InteractionDifference(.webSocket, old: count(a), new: count(b)))
            }
            for (index, (x, y)) in zip(a.messages, b.messages).enumerated() {
                note(.message(index, .from), x.from, y.from, shown: \.rawValue, into: &found)
                note(.message(index, .kind), x.kind, y.kind, shown: \.rawValue, into: &found)
                time(.message(index, .at), x.at, y.at, into: &found)
                note(.message(index, .code), x.code, y.code, shown: String.init, into: &found)
                if x.data != y.data {
                    var (p, q) = (shown(x), shown(y))
                    if p == q { (p, q) = (shown(x.data), shown(y.data)) }
                    found.append(InteractionDifference(.message(index, .payload), old: p, new: q))
                }
            }
            return found
        case (let a, let b):
            return [InteractionDifference(.webSocket, old: a.map(count), new: b.map(count))]
        }
    }

    // MARK: Shown values

    private static func time(
        _ place: InteractionDifference.Place, _ a: TimeInterval, _ b: TimeInterval, into found: inout [InteractionDifference]
    ) {
        guard a != b else { return }
        found.append(InteractionDifference(place, old: seconds(a), new: seconds(b), seconds: .init(old: a, new: b)))
    }

    private static func seconds(_ value: TimeInterval) -> String {
        JSONCassetteCodec.formatSeconds(value) + " s"
    }

    private static func shown(_ date: Date) -> String { Timestamp.format(date) ?? "\(date.timeIntervalSince1970)" }

    private static func shown(_ error: Interaction.TransportError) -> String {
        let name = error.code.name ?? "code \(error.code.rawValue)"
        return error.afterBytes.map { "\(name) after \($0) bytes" } ?? name
    }

    private static func shown(_ timing: Interaction.Timing) -> String {
        "firstByte \(seconds(timing.firstByte)), duration \(seconds(timing.duration))"
    }

    /// As `CASSETTE_LATENCY` spells it: `fixed:2,2.5`, `scaled:3`, `speed:edge,0.1`.
    private static func shown(_ latency: Latency) -> String { latency.description }

    private static func shown(_ headers: Interaction.Headers) -> String {
        headers.fields.map { "\($0.name): \($0.values.joined(separator: ", "))" }.joined(separator: "; ")
    }

    private static func shown(_ message: Interaction.WebSocketMessage) -> String {
        if message.kind != .binary, let text = message.text { return RequestDifference.quoted(text) + " (\(message.data.count) bytes)" }
        return shown(message.data)
    }

    /// A body as a difference shows it: its size and a hash of its bytes (FNV-1a, 64 bits).
    static func shown(_ body: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\(body.count) bytes, fnv1a \(String(repeating: "0", count: 16 - hex.count) + hex)"
    }
}
