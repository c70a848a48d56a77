import Foundation

/// The parts of a request that ``RequestMatching`` compares, in canonical form, so that two
/// requests match exactly when their keys are equal and matching is a dictionary lookup.
package struct RequestKey: Hashable, Sendable {
    var method: String
    var url: String
    var headers: [String]
    var body: BodyKey

    enum BodyKey: Hashable, Sendable {
        /// Compact JSON with sorted keys and normalised numbers, or sorted form fields.
        case canonical(String)
        case bytes(Data)
        /// Multipart parts without the boundary: name, file name, content type and body key of
        /// each, sorted by name unless the order counts.
        case multipart([PartKey])
        /// Connect or gRPC-Web envelopes: each one's flags and payload, a JSON payload by meaning.
        case envelopes([EnvelopeKey], rest: Data)
    }

    struct EnvelopeKey: Hashable, Sendable {
        var flags: UInt8
        var payload: BodyKey
    }

    struct PartKey: Hashable, Sendable {
        var name: String?
        var filename: String?
        var contentType: String?
        var body: BodyKey
    }

    package init(_ request: Interaction.Request, rules: RequestMatching) {
        method = request.method.utf8.allSatisfy { !(0x61...0x7A).contains($0) } ? request.method : request.method.uppercased()
        headers = rules.headers.map { Self.comparedValue(of: $0, in: request.headers) ?? "" }
        if let message = ConnectGetMessage(request) {
            url = CanonicalURL.text(
                request.url, ignoringQuery: rules.ignoredQueryParameters.union(ConnectGetMessage.carriers), origin: rules.origin)
            body = Self.bodyKey(message.content, rules: rules)
        } else {
            url = CanonicalURL.text(request.url, ignoringQuery: rules.ignoredQueryParameters, origin: rules.origin)
            body = Self.bodyKey(BodyContent(of: request), rules: rules)
        }
    }

    /// The value of header `name` as matching compares it: repeated values joined; a multipart
    /// `Content-Type` without its boundary (two uploads differ in it, which says nothing). Nil
    /// when the header is absent.
    static func comparedValue(of name: String, in headers: Interaction.Headers) -> String? {
        guard let value = headers[name] else { return nil }
        return name.lowercased() == "content-type" && Multipart.isFormData(contentType: value) ? Multipart.withoutBoundary(value) : value
    }

    static func bodyKey(_ kind: BodyContent, rules: RequestMatching) -> BodyKey {
        switch kind {
        case .form(let fields):
            return .canonical(fields.stableSorted().map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        case .json(let value):
            let canonical = CanonicalJSON.value(value, removing: rules.ignoredJSONPaths.map(JSONPathPattern.init))
            return .canonical(String(decoding: JSONWriter.compact(canonical), as: UTF8.self))
        case .multipart(let multipart):
            return multipartKey(multipart.parts, rules: rules)
        case .protobuf(let fields):
            // Read only when canonical: equal messages are equal bytes.
            return .bytes(ProtobufWire.encode(fields))
        case .envelopes(let framed):
            let keys = framed.envelopes.map { envelope in
                guard case .json(let value) = envelope.content else {
                    return EnvelopeKey(flags: envelope.flags, payload: .bytes(envelope.payload))
                }
                return EnvelopeKey(flags: envelope.flags, payload: bodyKey(.json(value), rules: RequestMatching.default))
            }
            return .envelopes(keys, rest: framed.rest)
        case .bytes(let data), .notMultipart(let data, _):
            return .bytes(data)
        }
    }

    /// What a multipart body with `parts` is compared by.
    static func multipartKey(_ parts: [Multipart.Part], rules: RequestMatching) -> BodyKey {
        let ordered = rules.comparesMultipartPartOrder ? parts : parts.sortedByName()
        return .multipart(
            ordered.map { part in
                PartKey(
                    name: part.name, filename: part.filename, contentType: part.contentType.map(Interaction.Body.mediaType(of:)),
                    body: bodyKey(BodyContent(part.body, contentType: part.contentType), rules: rules))
            })
    }
}

extension Array where Element == Multipart.Part {
    /// Sorted by name; parts with the same name (or none) keep their order.
    func sortedByName() -> [Multipart.Part] {
        enumerated().sorted { ($0.element.name ?? "", $0.offset) < ($1.element.name ?? "", $1.offset) }.map(\.element)
    }
}

/// A URL in a form where equal URLs are equal strings: scheme and host lower-cased, the default
/// port dropped, an empty path written `/`, query parameters sorted by name (keeping the order
/// of repeated names) and percent-decoded, the fragment dropped.
enum CanonicalURL {
    /// - Parameter origin: with ``RequestMatching/Origin/anyPort`` the port is left out, with
    ///   ``RequestMatching/Origin/any`` scheme, host and port are (the text starts at the path).
    static func text(_ url: String, ignoringQuery ignored: Set<String> = [], origin rule: RequestMatching.Origin = .exact) -> String {
        // Most URLs a client sends are canonical already: then the text is the URL itself, or its
        // path and query when any origin matches.
        if ignored.isEmpty, rule != .anyPort, let pathStart = canonicalPathStart(url) {
            return rule == .exact ? url : String(url.utf8.dropFirst(pathStart)) ?? url
        }
        // Delimiters are found in the UTF-8 view: this runs for every request, and Character and
        // Foundation searches cost more than the rest of matching together (CassetteBench).
        var rest = Substring(url)
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        var query: Substring?
        if let mark = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[rest.utf8.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let schemeEnd = schemeSeparator(in: rest) else { return String(rest) + canonicalQuery(query, ignored) }
        let scheme = lowercased(rest[..<schemeEnd])
        let afterScheme = rest[rest.utf8.index(schemeEnd, offsetBy: 3)...]
        let authorityEnd = afterScheme.utf8.firstIndex(of: UInt8(ascii: "/")) ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.utf8.index(after: at)...] }
        var host = lowercased(authority)
        if let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")), !host[colon...].utf8.contains(UInt8(ascii: "]")) {
            let port = host[host.utf8.index(after: colon)...]
            if port.isEmpty || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
                host = String(host[..<colon])
            }
        }
        let path = afterScheme[authorityEnd...]
        let pathAndQuery = (path.isEmpty ? "/" : String(path)) + canonicalQuery(query, ignored)
        switch rule {
        case .exact:
            break
        case .anyPort:
            if let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")), !host[colon...].utf8.contains(UInt8(ascii: "]")) {
                host = String(host[..<colon])
            }
        case .any:
            return pathAndQuery
        }
        return scheme + "://" + host + pathAndQuery
    }

    /// Where the path starts in `url`'s UTF-8 bytes when `url` is its own canonical text (nil
    /// otherwise): lower-case ASCII scheme and host, no user info, no default or empty port, a path,
    /// no fragment, and a query (if any) that ``canonicalQuery(_:_:)`` would give back as it is.
    /// Then the text for ``RequestMatching/Origin/any`` is the URL from there. Scans the bytes
    /// without allocating.
    private static func canonicalPathStart(_ url: String) -> Int? {
        // Scanned as raw bytes: String.UTF8View's index checks cost several times the scan.
        // (`withUTF8` copies only a bridged string.)
        var bytes = url
        return bytes.withUTF8(canonicalPathStart)
    }

    private static func canonicalPathStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let schemeEnd = schemeSeparator(in: bytes) else { return nil }
        for byte in bytes[..<schemeEnd] where byte >= 0x80 || (0x41...0x5A).contains(byte) { return nil }
        let isHTTP =
            schemeEnd == 4 && bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t") && bytes[2] == UInt8(ascii: "t")
            && bytes[3] == UInt8(ascii: "p")
        let isHTTPS =
            schemeEnd == 5 && bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t") && bytes[2] == UInt8(ascii: "t")
            && bytes[3] == UInt8(ascii: "p") && bytes[4] == UInt8(ascii: "s")
        var index = schemeEnd + 3
        // Authority: lower-case ASCII, no user info, a port that is neither empty nor the default.
        var colon: Int?
        while index < bytes.count, bytes[index] != UInt8(ascii: "/") {
            switch bytes[index] {
            case 0x80..., 0x41...0x5A, UInt8(ascii: "@"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"):
                return nil
            case UInt8(ascii: ":"): colon = index
            default: break
            }
            index += 1
        }
        guard index < bytes.count else { return nil }  // no path: the canonical text adds "/"
        let pathStart = index
        if let colon {
            let port = bytes[(colon + 1)..<index]
            let isDefault =
                (isHTTP && port.count == 2 && port[colon + 1] == UInt8(ascii: "8") && port[colon + 2] == UInt8(ascii: "0"))
                || (isHTTPS && port.count == 3 && port[colon + 1] == UInt8(ascii: "4") && port[colon + 2] == UInt8(ascii: "4")
                    && port[colon + 3] == UInt8(ascii: "3"))
            if port.isEmpty || isDefault { return nil }
        }
        // Path, then the query.
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "#"): return nil
            case UInt8(ascii: "?"): return isCanonicalQuery(bytes[(index + 1)...]) ? pathStart : nil
            default: index += 1
            }
        }
        return pathStart
    }

    /// Whether `query` is the canonical text of itself: non-empty pairs `name=value` of ASCII
    /// without `%`, `+` or `#`, names in sorted order.
    private static func isCanonicalQuery(_ query: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard !query.isEmpty else { return false }
        var previousName: Slice<UnsafeBufferPointer<UInt8>>?
        var pairStart = query.startIndex
        var nameEnd: Int?
        var index = query.startIndex
        while true {
            let atEnd = index == query.endIndex
            let byte = atEnd ? UInt8(ascii: "&") : query[index]
            switch byte {
            case UInt8(ascii: "&"):
                guard let end = nameEnd, pairStart < index else { return false }
                let name = query[pairStart..<end]
                if let previousName, name.lexicographicallyPrecedes(previousName) { return false }
                previousName = name
                if atEnd { return true }
                pairStart = index + 1
                nameEnd = nil
            case UInt8(ascii: "="):
                if nameEnd == nil { nameEnd = index }
            case 0x80..., UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: "#"):
                return false
            default:
                break
            }
            index += 1
        }
    }

    /// Where `://` starts in `bytes`.
    private static func schemeSeparator(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Where `://` starts in `text`: the byte search above, its offset turned into an index.
    private static func schemeSeparator(in text: Substring) -> Substring.Index? {
        var bytes = text
        // `withUTF8` may make a bridged substring contiguous (a copy): only its offset is kept.
        guard let offset = bytes.withUTF8({ schemeSeparator(in: $0) }) else { return nil }
        return text.utf8.index(text.utf8.startIndex, offsetBy: offset)
    }

    /// Lower-cased; without allocating a new form when it is lower-case ASCII already.
    private static func lowercased(_ text: Substring) -> String {
        text.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) ? String(text) : text.lowercased()
    }

    private static func canonicalQuery(_ query: Substring?, _ ignored: Set<String>) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = FormFields.parse(String(query), plusIsSpace: false)
            .filter { !ignored.contains($0.name) }
            .stableSorted()
        if pairs.isEmpty { return "" }
        return "?" + pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }
}

/// `name=value&name=value` pairs, as in a query string or a form body, percent-decoded.
package struct FormFields {
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    static func parse(_ text: String, plusIsSpace: Bool = true) -> [Field] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                // Most names and values need no decoding; Foundation's is slow on every request.
                let hasPlus = plusIsSpace && s.utf8.contains(UInt8(ascii: "+"))
                guard hasPlus || s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
                let spaced = hasPlus ? s.replacingOccurrences(of: "+", with: " ") : String(s)
                return spaced.removingPercentEncoding ?? spaced
            }
            return Field(name: decode(pieces[0]), value: pieces.count > 1 ? decode(pieces[1]) : "")
        }
    }
}

extension Array where Element == FormFields.Field {
    /// Sorted by name; fields with the same name keep their order (`a=1&a=2` is not `a=2&a=1`).
    func stableSorted() -> [FormFields.Field] {
        enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
    }
}

/// JSON in a canonical form: object members sorted by key, numbers normalised (`1.0` is `1`),
/// and the given paths removed.
enum CanonicalJSON {
    static func value(_ value: JSONValue, removing paths: [JSONPathPattern]) -> JSONValue {
        transform(value, paths.map { ArraySlice($0.steps) })
    }

    private static func transform(_ value: JSONValue, _ paths: [ArraySlice<JSONPathPattern.Step>]) -> JSONValue {
        switch value {
        case .object(let members):
            var kept: [JSONMember] = []
            for member in members {
                let below = paths.compactMap { path -> ArraySlice<JSONPathPattern.Step>? in
                    guard case .key(let key)? = path.first, key == member.key else { return nil }
                    return path.dropFirst()
                }
                if below.contains(where: \.isEmpty) { continue }
                kept.append(JSONMember(key: member.key, value: JSONNode(transform(member.value.value, below))))
            }
            return .object(kept.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        case .array(let elements):
            var kept: [JSONNode] = []
            for (index, element) in elements.enumerated() {
                let below = paths.compactMap { path -> ArraySlice<JSONPathPattern.Step>? in
                    switch path.first {
                    case .index(let i)? where i == index: return path.dropFirst()
                    case .anyIndex?: return path.dropFirst()
                    default: return nil
                    }
                }
                if below.contains(where: \.isEmpty) { continue }
                kept.append(JSONNode(transform(element.value, below)))
            }
            return .array(kept)
        case .number(let literal):
            return .number(Decimal(string: literal).map { "\($0)" } ?? literal)
        default:
            return value
        }
    }
}
