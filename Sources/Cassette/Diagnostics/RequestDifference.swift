import Foundation

/// One way a requested interaction differs from a recorded one, under the matching rules: what
/// the unmatched-request report lists (``UnmatchedRequest/Candidate/differences``), and how it
/// ranks the closest recordings.
public struct RequestDifference: Equatable, Sendable, CustomStringConvertible {
    /// Which part of the request differs.
    public enum Field: Equatable, Sendable {
        case method
        /// Scheme, host and port.
        case origin
        case path
        case query(String)
        case header(String)
        /// A place in a JSON body.
        case json(JSONPath)
        case formField(String)
        /// A part of a `multipart/form-data` body, by its name (`""` for a part without one).
        case multipartPart(String)
        /// A body compared byte for byte.
        case body
    }

    /// Where the requests differ.
    public var field: Field
    /// The recorded value, quoted where it is text; nil when the recording has none.
    public var recorded: String?
    /// The requested value; nil when the request has none.
    public var requested: String?
    /// For a difference inside a Connect or gRPC-Web request message (``field`` is
    /// ``Field/body``): which message and field; nil for every other difference.
    public var messageField: MessageField?

    /// A difference from its parts (to compare with a report's in a test).
    package init(field: Field, recorded: String?, requested: String?, messageField: MessageField? = nil) {
        self.field = field
        self.recorded = recorded
        self.requested = requested
        self.messageField = messageField
    }

    /// How far apart this makes the two requests: another host or path counts most, one query
    /// parameter or JSON value least.
    var weight: Int {
        guard messageField == nil else { return 1 }
        return switch field {
        case .origin: 8
        case .path: 6
        case .method: 4
        case .body: 2
        case .query, .header, .json, .formField, .multipartPart: 1
        }
    }

    /// `query parameter "page": recorded "1", requested "2"`.
    public var description: String {
        let name: String
        if let messageField { return "\(messageField): recorded \(recorded ?? "nothing"), requested \(requested ?? "nothing")" }
        switch field {
        case .method: name = "method"
        case .origin: name = "scheme, host and port"
        case .path: name = "path"
        case .query(let key): name = "query parameter \(Self.quoted(key))"
        case .header(let key): name = "header \(key)"
        case .json(let path): name = "JSON body at \(path)"
        case .formField(let key): name = "form field \(Self.quoted(key))"
        case .multipartPart(let key): name = "multipart part \(Self.quoted(key))"
        case .body: return "body: recorded \(recorded ?? "no body"), requested \(requested ?? "no body")"
        }
        return "\(name): recorded \(recorded ?? "nothing"), requested \(requested ?? "nothing")"
    }

    /// Every difference between `live` and `recorded` under `rules` (custom predicates aside), in
    /// the order the report lists them.
    static func between(_ live: Interaction.Request, _ recorded: Interaction.Request, rules: RequestMatching) -> [RequestDifference] {
        var differences: [RequestDifference] = []
        if live.method.uppercased() != recorded.method.uppercased() {
            differences.append(.init(field: .method, recorded: recorded.method, requested: live.method))
        }
        let a = URLParts(recorded.url)
        let b = URLParts(live.url)
        if a.origin(under: rules.origin) != b.origin(under: rules.origin) {
            differences.append(.init(field: .origin, recorded: a.origin, requested: b.origin))
        }
        if a.path != b.path { differences.append(.init(field: .path, recorded: a.path, requested: b.path)) }
        // A Connect GET's message is compared as a message, in place of the parameters carrying
        // it; one that cannot be compared part by part is shown as those parameters.
        var messageDifferences: [RequestDifference]?
        if live.method.uppercased() == "GET", recorded.method.uppercased() == "GET",
            let was = ConnectGetMessage(query: a.query)?.content, let now = ConnectGetMessage(query: b.query)?.content
        {
            let same = RequestKey.bodyKey(was, rules: rules) == RequestKey.bodyKey(now, rules: rules)
            messageDifferences = same ? [] : bodyDifferences(was, now, rules: rules)
        }
        let ignoredParameters =
            messageDifferences == nil ? rules.ignoredQueryParameters : rules.ignoredQueryParameters.union(ConnectGetMessage.carriers)
        differences += fields(a.query, b.query, ignoring: ignoredParameters).map {
            RequestDifference(field: .query($0.name), recorded: $0.recorded.map(quoted), requested: $0.requested.map(quoted))
        }
        for name in rules.headers {
            let was = recorded.headers[name]
            let now = live.headers[name]
            if RequestKey.comparedValue(of: name, in: recorded.headers) != RequestKey.comparedValue(of: name, in: live.headers) {
                differences.append(.init(field: .header(name), recorded: was.map(quoted), requested: now.map(quoted)))
            }
        }
        differences += messageDifferences ?? []
        differences += bodyDifferences(live, recorded, rules: rules)
        // A placeholder stands for whatever the request has there: not a difference.
        return differences.filter { difference in
            guard let was = difference.recorded, let now = difference.requested, PlaceholderPattern.containsPlaceholder(was) else {
                return true
            }
            return PlaceholderPattern.match(was, now, bound: [:]) == nil
        }
    }

    // MARK: Bodies

    private static func bodyDifferences(
        _ live: Interaction.Request, _ recorded: Interaction.Request, rules: RequestMatching
    ) -> [RequestDifference] {
        guard live.body.data != recorded.body.data else { return [] }
        return bodyDifferences(BodyContent(of: recorded), BodyContent(of: live), rules: rules)
            ?? [RequestDifference(field: .body, recorded: brief(recorded.body), requested: brief(live.body))]
    }

    /// The differences between two bodies read by what they are, part by part; nil when they are
    /// not of one kind that is compared that way.
    private static func bodyDifferences(_ was: BodyContent, _ now: BodyContent, rules: RequestMatching) -> [RequestDifference]? {
        switch (was, now) {
        case (.json(let was), .json(let now)):
            let ignored = rules.ignoredJSONPaths.map(JSONPathPattern.init)
            var found: [RequestDifference] = []
            jsonDifferences(
                CanonicalJSON.value(was, removing: ignored), CanonicalJSON.value(now, removing: ignored), at: .root, into: &found)
            return found
        case (.form(let was), .form(let now)):
            return fields(was, now, ignoring: []).map {
                RequestDifference(field: .formField($0.name), recorded: $0.recorded.map(quoted), requested: $0.requested.map(quoted))
            }
        case (.multipart(let was), .multipart(let now)):
            return partDifferences(was, now, rules: rules)
        case (.protobuf(let was), .protobuf(let now)):
            return MessageDifferences.between(was, now)
        case (.envelopes(let was), .envelopes(let now)):
            return MessageDifferences.between(was, now)
        default:
            return nil
        }
    }

    /// One difference for each part name whose parts differ (count, file name, content type or
    /// body, under the rules), in first-appearance order.
    private static func partDifferences(_ was: Multipart, _ now: Multipart, rules: RequestMatching) -> [RequestDifference] {
        var names: [String] = []
        for part in was.parts + now.parts where !names.contains(part.name ?? "") { names.append(part.name ?? "") }
        var found: [RequestDifference] = []
        for name in names {
            let a = was.parts.filter { ($0.name ?? "") == name }
            let b = now.parts.filter { ($0.name ?? "") == name }
            if !a.isEmpty, !b.isEmpty, RequestKey.multipartKey(a, rules: rules) == RequestKey.multipartKey(b, rules: rules) { continue }
            found.append(
                RequestDifference(
                    field: .multipartPart(name), recorded: a.isEmpty ? nil : describe(a), requested: b.isEmpty ? nil : describe(b)))
        }
        if found.isEmpty, rules.comparesMultipartPartOrder {
            found.append(
                RequestDifference(
                    field: .body, recorded: "parts " + was.parts.map { quoted($0.name ?? "") }.joined(separator: ", "),
                    requested: "parts " + now.parts.map { quoted($0.name ?? "") }.joined(separator: ", ")))
        }
        return found
    }

    /// `filename "a.png", image/png, 4096 bytes of binary data`, parts sharing a name joined by `; `.
    private static func describe(_ parts: [Multipart.Part]) -> String {
        parts.map { part in
            var pieces: [String] = []
            if let filename = part.filename { pieces.append("filename \(quoted(filename))") }
            if let contentType = part.contentType { pieces.append(contentType) }
            if part.body.isEmpty {
                pieces.append("empty")
            } else if let text = Interaction.Body(part.body).text {
                pieces.append("\(quoted(text)) (\(part.body.count) bytes)")
            } else {
                pieces.append("\(part.body.count) bytes of binary data")
            }
            return pieces.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    /// Why a body that says it is multipart is compared byte for byte, or nil when it is not such a body.
    static func multipartNote(_ request: Interaction.Request, as role: String) -> String? {
        guard case .notMultipart(_, let error) = BodyContent(of: request) else { return nil }
        return
            "the \(role) body says multipart/form-data but is not valid multipart (\(error.description)), so it is compared byte for byte."
    }

    private static func jsonDifferences(_ was: JSONValue?, _ now: JSONValue?, at path: JSONPath, into found: inout [RequestDifference]) {
        switch (was, now) {
        case (.object(let a)?, .object(let b)?):
            var keys: [String] = []
            for key in a.map(\.key) + b.map(\.key) where !keys.contains(key) { keys.append(key) }
            for key in keys {
                jsonDifferences(
                    a.first { $0.key == key }?.value.value, b.first { $0.key == key }?.value.value,
                    at: path.appending(key), into: &found)
            }
        case (.array(let a)?, .array(let b)?):
            for index in 0..<max(a.count, b.count) {
                jsonDifferences(
                    index < a.count ? a[index].value : nil, index < b.count ? b[index].value : nil,
                    at: path.appending(index), into: &found)
            }
        default:
            let a = was.map(compactText)
            let b = now.map(compactText)
            if a != b { found.append(RequestDifference(field: .json(path), recorded: a, requested: b)) }
        }
    }

    private static func compactText(_ value: JSONValue) -> String {
        clipped(String(decoding: JSONWriter.compact(value), as: UTF8.self))
    }

    /// `no body`, `body (16 bytes): name=Ada&year=1`, `body (4096 bytes of binary data)`; text
    /// past 60 characters is cut with "…".
    static func summary(of body: Interaction.Body) -> String {
        if body.isEmpty { return "no body" }
        guard let text = body.text else { return "body (\(body.data.count) bytes of binary data)" }
        return "body (\(body.data.count) bytes): \(clipped(text))"
    }

    /// `{"id":1} (8 bytes)`, `4096 bytes of binary data`, or nil for no body.
    private static func brief(_ body: Interaction.Body) -> String? {
        if body.isEmpty { return nil }
        guard let text = body.text else { return "\(body.data.count) bytes of binary data" }
        return "\(clipped(text)) (\(body.data.count) bytes)"
    }

    // MARK: Name–value fields

    private struct FieldDifference {
        var name: String
        var recorded: String?
        var requested: String?
    }

    /// Names in first-appearance order (recorded first); repeated names compared as lists.
    private static func fields(_ was: [FormFields.Field], _ now: [FormFields.Field], ignoring ignored: Set<String>) -> [FieldDifference] {
        var names: [String] = []
        for field in was + now where !ignored.contains(field.name) && !names.contains(field.name) { names.append(field.name) }
        return names.compactMap { name in
            let a = was.filter { $0.name == name }.map(\.value)
            let b = now.filter { $0.name == name }.map(\.value)
            guard a != b else { return nil }
            return FieldDifference(
                name: name, recorded: a.isEmpty ? nil : a.joined(separator: ", "),
                requested: b.isEmpty ? nil : b.joined(separator: ", "))
        }
    }

    // MARK: Text

    static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.appendString(clipped(text), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func clipped(_ text: String) -> String {
        text.count > 60 ? text.prefix(57) + "…" : text
    }
}

/// A URL cut into what matching compares: origin (`https://api.example.com:8443`, canonical),
/// path, and the query as fields.
struct URLParts {
    var origin: String
    var path: String
    var query: [FormFields.Field]

    /// The origin as `rule` compares it: whole, without the port, or not at all.
    func origin(under rule: RequestMatching.Origin) -> String {
        switch rule {
        case .exact: return origin
        case .anyPort: return CanonicalURL.text(origin, origin: .anyPort)
        case .any: return ""
        }
    }

    init(_ url: String) {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        query = []
        if let mark = rest.firstIndex(of: "?") {
            query = FormFields.parse(String(rest[rest.index(after: mark)...]), plusIsSpace: false)
            rest = rest[..<mark]
        }
        let canonical = CanonicalURL.text(String(rest))
        if let schemeEnd = canonical.range(of: "://"), let slash = canonical[schemeEnd.upperBound...].firstIndex(of: "/") {
            origin = String(canonical[..<slash])
            path = String(canonical[slash...])
        } else {
            origin = canonical
            path = "/"
        }
    }
}
