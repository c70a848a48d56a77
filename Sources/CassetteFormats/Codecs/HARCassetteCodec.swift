import Foundation

/// Reads and writes cassettes as HAR 1.2 (HTTP Archive) files, the format browser devtools,
/// Charles, Proxyman and mitmproxy export.
///
/// ```swift
/// let har = try Data(contentsOf: URL(fileURLWithPath: "session.har"))
/// let document = try HARCassetteCodec.decode(har, file: "session.har")   // replay what a browser saw
/// let exported = try HARCassetteCodec.encode(document)                   // open a cassette in a HAR viewer
/// ```
///
/// How entries and interactions correspond:
///
/// | HAR | interaction |
/// | --- | --- |
/// | `startedDateTime` | `recordedAt` |
/// | `request.method`, `url`, `headers`, `postData.text` | the request (HTTP/2 pseudo-headers such as `:authority` are left out) |
/// | `response.status`, `headers`, `content.text` (`encoding: "base64"` for bytes that are not UTF-8) | the response, its body decoded as the caller received it |
/// | `timings`: `blocked + dns + connect + send + wait` (those not -1), then `+ receive` | `timing.firstByte`, `timing.duration` |
/// | `_cassette` on the entry | what HAR cannot say: `error`, `latency`, `responseURL`, `scenario`, `undated`, `untimed`, and the exact `timing` when milliseconds would round it |
/// | `log.creator`, or `log._cassette.recordedWith` when the creator's name and version cannot say it | `recordedWith` |
/// | `log._cassette.metadata` | `metadata` |
///
/// Export writes every field HAR 1.2 requires, with `time` the sum of the non-negative timings.
/// An interaction that got no response is exported with status 0, as browsers export a failed
/// request. Import is lenient with files from other tools: fields it does not use, including other
/// tools' `_` fields, are ignored; a missing `log.version` is taken as 1.1 (as the spec says of an
/// empty one), but a version other than 1.1 or 1.2 is an error; keys may not repeat; timings are
/// milliseconds, zero or more, or -1 for "not applicable"; an entry with status 0 and no `_cassette.error` becomes a
/// transport error (a browser's `_error` such as `net::ERR_CONNECTION_REFUSED` picks its code).
package enum HARCassetteCodec {
    /// The HAR version written.
    package static let harVersion = "1.2"

    /// Decodes a HAR file into a cassette.
    ///
    /// - Throws: ``CassetteFormatError`` listing every problem, each with its JSON path, line and column.
    package static func decode(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> CassetteDocument {
        let root = try JSONCassetteCodec.parse(data, file: file)
        var reader = HARReader()
        var document = reader.readDocument(root)
        // HAR is JSON, read as strictly as a JSON cassette: a repeated key is a hand edit gone wrong.
        if let duplicate = root.value.firstDuplicateKey() {
            reader.report(
                "duplicate key \(CassetteRules.quoted(duplicate.key)); each key may appear once", at: duplicate.path,
                offset: duplicate.offset)
            document = CassetteDocument()
        }
        guard !reader.problems.isEmpty else { return document }
        throw JSONCassetteCodec.error(reader.problems, in: data, file: file)
    }

    /// Encodes a cassette as a HAR 1.2 file: deterministic, two-space indentation, ending in a newline.
    ///
    /// - Throws: ``CassetteFormatError`` when a value could not be read back (see ``CassetteDocument/problems()``).
    package static func encode(_ document: CassetteDocument) throws(CassetteFormatError) -> Data {
        Data(try encodedBytes(document))
    }

    /// ``encode(_:)``'s bytes, before they are copied into a `Data` (see `JSONCassetteCodec.encodedBytes`).
    package static func encodedBytes(_ document: CassetteDocument) throws(CassetteFormatError) -> [UInt8] {
        let problems = document.problems()
        guard problems.isEmpty else { throw CassetteFormatError(file: nil, problems: problems) }
        let (name, version) = creator(of: document.recordedWith)
        var log: [JSONMember] = [
            member("version", .string(harVersion)),
            member("creator", .object([member("name", .string(name)), member("version", .string(version))])),
        ]
        var extras: [JSONMember] = []
        if let recordedWith = document.recordedWith, self.recordedWith(name: name, version: version) != recordedWith {
            extras.append(member("recordedWith", .string(recordedWith)))
        }
        if !document.metadata.isEmpty { extras.append(member("metadata", MetadataValue.object(document.metadata).json)) }
        if !extras.isEmpty { log.append(member("_cassette", .object(extras))) }
        log.append(member("entries", .array(document.interactions.map { JSONNode(entry(for: $0)) })))
        return JSONPrettyPrinter(lineWidth: 100, multilineDepth: 4).print(.object([member("log", .object(log))]))
    }

    // MARK: Writing

    private static func entry(for interaction: Interaction) -> JSONValue {
        var extras: [JSONMember] = []
        let started: String
        if let recordedAt = interaction.recordedAt, let text = Timestamp.format(recordedAt) {
            started = text
        } else {
            started = "1970-01-01T00:00:00.000Z"
            extras.append(member("undated", .bool(true)))
        }
        let timings: JSONValue
        let time: Double
        if let timing = interaction.timing {
            let wait = milliseconds(timing.firstByte)
            let receive = milliseconds(timing.duration - timing.firstByte)
            if Self.timing(beforeFirstByte: wait, receive: receive) != timing {
                extras.append(
                    member(
                        "timing",
                        .object([
                            member("firstByte", .number(JSONCassetteCodec.formatSeconds(timing.firstByte))),
                            member("duration", .number(JSONCassetteCodec.formatSeconds(timing.duration))),
                        ])))
            }
            timings = timingsObject(wait: wait, receive: receive)
            time = wait + receive
        } else {
            extras.append(member("untimed", .bool(true)))
            timings = timingsObject(wait: 0, receive: 0)
            time = 0
        }
        if let error = interaction.error {
            var members = [member("code", error.code.name.map { .string($0) } ?? .number(String(error.code.rawValue)))]
            if let afterBytes = error.afterBytes { members.append(member("afterBytes", .number(String(afterBytes)))) }
            extras.append(member("error", .object(members)))
        }
        if let latency = interaction.latency { extras.append(member("latency", .string(latency.description))) }
        if let url = interaction.response?.url { extras.append(member("responseURL", .string(url))) }
        if let scenario = interaction.scenario { extras.append(member("scenario", .string(scenario))) }

        var members = [
            member("startedDateTime", .string(started)),
            member("time", number(time)),
            member("request", request(interaction.request)),
            member("response", response(interaction.response)),
            member("cache", .object([])),
            member("timings", timings),
        ]
        if !extras.isEmpty { members.append(member("_cassette", .object(extras))) }
        if !interaction.challenges.isEmpty {
            // Cassette's extension: each challenge as a cassette writes it, its response as HAR writes responses.
            let challenges = interaction.challenges.map { challenge in
                var members = [member("method", .string(challenge.method))]
                if let realm = challenge.realm { members.append(member("realm", .string(realm))) }
                members.append(member("answer", .string(challenge.answer.rawValue)))
                members.append(member("response", response(challenge.response)))
                return JSONNode(.object(members))
            }
            members.append(member("_challenges", .array(challenges)))
        }
        if let conversation = interaction.webSocket {
            let upgradedAt = (interaction.recordedAt?.timeIntervalSince1970 ?? 0) + (interaction.timing?.firstByte ?? 0)
            members.append(member("_webSocketMessages", HARWebSocketMessages.tree(for: conversation, upgradedAt: upgradedAt)))
        }
        return .object(members)
    }

    private static func request(_ request: Interaction.Request) -> JSONValue {
        var members = [
            member("method", .string(request.method)),
            member("url", .string(request.url)),
            member("httpVersion", .string("HTTP/1.1")),
            member("cookies", .array(HARNameValuePairs.requestCookies(request.headers).map(nameValue))),
            member("headers", headers(request.headers)),
            member("queryString", .array(HARNameValuePairs.queryParameters(of: request.url).map(nameValue))),
        ]
        if !request.body.isEmpty {
            var postData = [member("mimeType", .string(request.headers["Content-Type"] ?? ""))]
            if let text = request.body.text {
                postData.append(member("text", .string(text)))
                if let params = multipartParams(request.body, contentType: request.headers["Content-Type"]) {
                    postData.append(member("params", params))
                }
            } else {
                // HAR 1.2 has no encoding for postData; `_encoding` is the field HAR 1.3 drafts and
                // several tools use.
                postData.append(member("text", .string(request.body.data.base64EncodedString())))
                postData.append(member("_encoding", .string("base64")))
            }
            members.append(member("postData", .object(postData)))
        }
        members.append(member("headersSize", .number("-1")))
        members.append(member("bodySize", .number(String(request.body.data.count))))
        return .object(members)
    }

    /// A multipart body's parts as HAR `params` (`name`, `fileName`, `contentType`, `value`), for
    /// tools and people reading the file; nil unless every part is text with only those fields.
    private static func multipartParams(_ body: Interaction.Body, contentType: String?) -> JSONValue? {
        guard Multipart.isFormData(contentType: contentType), let multipart = Multipart.canonical(body.data, contentType: contentType),
            multipart.parts.allSatisfy({ $0.name != nil && $0.otherHeaders.isEmpty && Interaction.Body.isWritableAsText($0.body) })
        else { return nil }
        return .array(
            multipart.parts.map { part in
                var fields = [member("name", .string(part.name ?? ""))]
                if let filename = part.filename { fields.append(member("fileName", .string(filename))) }
                if let contentType = part.contentType { fields.append(member("contentType", .string(contentType))) }
                fields.append(member("value", .string(String(decoding: part.body, as: UTF8.self))))
                return JSONNode(.object(fields))
            })
    }

    private static func response(_ response: Interaction.Response?) -> JSONValue {
        guard let response else {
            // No response: exported the way browsers export a request that failed.
            return .object([
                member("status", .number("0")), member("statusText", .string("")), member("httpVersion", .string("")),
                member("cookies", .array([])), member("headers", .array([])),
                member("content", .object([member("size", .number("0")), member("mimeType", .string(""))])),
                member("redirectURL", .string("")), member("headersSize", .number("-1")), member("bodySize", .number("-1")),
            ])
        }
        var content = [
            member("size", .number(String(response.body.data.count))),
            member("mimeType", .string(response.headers["Content-Type"] ?? "")),
        ]
        if let text = response.body.text {
            content.append(member("text", .string(text)))
        } else {
            content.append(member("text", .string(response.body.data.base64EncodedString())))
            content.append(member("encoding", .string("base64")))
        }
        if let stream = response.stream {
            // An extension field (HAR 1.2 allows "_" fields; other tools ignore it): in seconds, as Cassette's JSON.
            content.append(
                member(
                    "_chunks",
                    .array(
                        stream.chunks.map { chunk in
                            JSONNode(
                                .object([
                                    member("at", .number(JSONCassetteCodec.formatSeconds(chunk.at))),
                                    member("size", .number(String(chunk.data.count))),
                                ]))
                        })))
        }
        return .object([
            member("status", .number(String(response.status))),
            member("statusText", .string(ReasonPhrase.of(response.status))),
            member("httpVersion", .string("HTTP/1.1")),
            member("cookies", .array(HARNameValuePairs.responseCookies(response.headers).map(nameValue))),
            member("headers", headers(response.headers)),
            member("content", .object(content)),
            member("redirectURL", .string(response.headers["Location"] ?? "")),
            member("headersSize", .number("-1")),
            member("bodySize", .number("-1")),
        ])
    }

    private static func headers(_ headers: Interaction.Headers) -> JSONValue {
        .array(headers.map { nameValue((name: $0.name, value: $0.value)) })
    }

    private static func nameValue(_ pair: (name: String, value: String)) -> JSONNode {
        JSONNode(.object([member("name", .string(pair.name)), member("value", .string(pair.value))]))
    }

    private static func timingsObject(wait: Double, receive: Double) -> JSONValue {
        .object([
            member("blocked", .number("-1")), member("dns", .number("-1")), member("connect", .number("-1")),
            member("send", .number("0")), member("wait", number(wait)), member("receive", number(receive)),
            member("ssl", .number("-1")),
        ])
    }

    // MARK: Shared with the reader

    /// Seconds as milliseconds, to the microsecond: `0.084` → `84`, not `84.00000000000001`.
    static func milliseconds(_ seconds: Double) -> Double {
        (seconds * 1_000_000).rounded() / 1000
    }

    /// The timing of an entry whose first byte came `beforeFirstByte` ms after it started and whose
    /// body took `receive` ms more.
    static func timing(beforeFirstByte: Double, receive: Double) -> Interaction.Timing {
        Interaction.Timing(firstByte: beforeFirstByte / 1000, duration: (beforeFirstByte + receive) / 1000)
    }

    /// `log.creator` for a `recordedWith` ("Cassette 0.1.0" → Cassette, 0.1.0), and back. A
    /// `recordedWith` that does not split into a name and a version this way ("Cassette" alone,
    /// a trailing space) is also written whole in `log._cassette.recordedWith`, which wins on reading.
    static func creator(of recordedWith: String?) -> (name: String, version: String) {
        guard let recordedWith else { return ("Cassette", "") }
        guard let space = recordedWith.lastIndex(of: " "), space > recordedWith.startIndex,
            recordedWith.index(after: space) < recordedWith.endIndex
        else { return (recordedWith, "") }
        return (String(recordedWith[..<space]), String(recordedWith[recordedWith.index(after: space)...]))
    }

    static func recordedWith(name: String, version: String) -> String? {
        if version.isEmpty { return name == "Cassette" ? nil : name }
        return "\(name) \(version)"
    }

    private static func number(_ value: Double) -> JSONValue {
        .number(JSONCassetteCodec.formatSeconds(value))
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, value: JSONNode(value))
    }
}
