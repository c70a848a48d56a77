import Cassette
import Foundation

/// One self-contained HTML page showing cassettes (`cassette view`): the request list, the detail
/// of each interaction, a timing waterfall and the cassettes' facts, with no network, no external
/// asset and no framework, working from `file://`.
///
/// A cassette is untrusted input: its URLs, headers and bodies can hold markup and script. None of
/// it is ever written into the page's HTML: the page carries the cassettes as JSON data inside an
/// inert `<script type="application/json">` (with `<`, `>` and `&` escaped, so `</script>` in a
/// body cannot end it), and the page's own script builds every element with `textContent` and
/// attributes it sets itself. A Content-Security-Policy allows only the page's own style and
/// script (by a nonce made for each page) and `data:` images, so even markup that slipped
/// through could not run.
package struct CassetteViewPage {
    /// A cassette to show: where it was read from, its format, what it holds, and notes on it
    /// (what `lint` warns of, or why a request missed), each on the interaction its path names.
    package struct Source {
        package var file: String
        package var format: String
        package var document: CassetteDocument
        package var warnings: [CassetteFormatError.Problem]
        /// What goes before each note: `lint: `.
        package var label: String
        /// For a comparison (`cassette diff --html`): the interaction each one is compared with,
        /// by place; the page shows the two side by side.
        package var pairs: [Int: Int] = [:]

        package init(
            file: String, format: String, document: CassetteDocument, warnings: [CassetteFormatError.Problem], label: String = "lint: "
        ) {
            self.file = file
            self.format = format
            self.document = document
            self.warnings = warnings
            self.label = label
        }

        /// `document`, read from `file`, with the notes it calls for: a tape's misses file
        /// (`feed.misses.json`) with its own notes, each on its row; any other cassette with what
        /// `lint` warns of.
        package init(file: String, format: String, reading document: CassetteDocument) {
            let notes = MissesFile.notes(in: document)
            guard !notes.isEmpty else {
                self.init(file: file, format: format, document: document, warnings: document.warnings())
                return
            }
            let problems = notes.map {
                CassetteFormatError.Problem(path: JSONPath.root.appending("interactions").appending($0.interaction), message: $0.text)
            }
            self.init(file: file, format: "misses of a tape", document: document, warnings: problems, label: "")
        }
    }

    /// Bodies larger than this are shown cut to it, with their size.
    package static let bodyLimit = 256 * 1024

    package var sources: [Source]
    /// The time "age" is counted to.
    package var now: Date

    package init(sources: [Source], now: Date = Date()) {
        self.sources = sources
        self.now = now
    }

    /// The page.
    package func html() -> String {
        let nonce = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let title = sources.count == 1 ? (sources[0].file as NSString).lastPathComponent : "\(sources.count) cassettes"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escapedText(title)) · Cassette</title>
            <style nonce="\(nonce)">\(CassetteViewAssets.style)</style>
            </head>
            <body>
            <header><h1>Cassette</h1><div id="facts"></div></header>
            <div id="controls"><input id="filter" type="search" placeholder="Filter: method, URL, status…" aria-label="Filter">
            <select id="status" aria-label="Status"><option value="">every status</option><option value="2">2xx</option><option value="3">3xx</option><option value="4">4xx</option><option value="5">5xx</option><option value="error">errors</option></select>
            <span id="count"></span></div>
            <main><section id="list-pane"><table id="list"><thead><tr><th data-sort="n">#</th><th data-sort="method">Method</th><th data-sort="url">URL</th><th data-sort="status">Status</th><th data-sort="size">Size</th><th data-sort="type">Type</th><th data-sort="duration">Timing</th></tr></thead><tbody></tbody></table>
            <h2>Waterfall</h2><div id="waterfall-pane"></div></section>
            <section id="detail"><p class="hint">Select an interaction.</p></section></main>
            <script type="application/json" id="cassette-data">\(dataJSON())</script>
            <script nonce="\(nonce)">\(CassetteViewAssets.script)</script>
            </body>
            </html>

            """
    }

    /// `text` escaped for an HTML text node.
    static func escapedText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }

    /// The cassettes as the page's script reads them, safe inside a `<script>` element.
    func dataJSON() -> String {
        var cassettes: [JSONValue] = []
        var interactions: [JSONValue] = []
        for (number, source) in sources.enumerated() {
            // Each cassette's waterfall starts at its own first recording: cassettes recorded days
            // apart would otherwise leave every bar a dot.
            let first = source.document.interactions.lazy.compactMap(\.recordedAt).min()
            cassettes.append(
                Self.object([
                    ("file", .string(source.file)), ("format", .string(source.format)),
                    ("interactions", Self.number(source.document.interactions.count)),
                    ("recordedWith", source.document.recordedWith.map { .string($0) } ?? .null),
                    ("metadata", source.document.metadata.isEmpty ? .null : MetadataValue.object(source.document.metadata).json),
                    ("ageDays", first.map { Self.number(Int(now.timeIntervalSince($0) / 86_400)) }),
                    (
                        "findings",
                        .array(
                            source.warnings.filter { interactionIndex(of: $0) == nil }.map { JSONNode(.string(source.label + $0.message)) })
                    ),
                ]))
            var findings: [Int: [JSONNode]] = [:]
            for problem in source.warnings {
                guard let index = interactionIndex(of: problem) else { continue }
                let place = problem.path.map { $0.components.count > 2 ? "\($0): " : "" } ?? ""
                findings[index, default: []].append(JSONNode(.string(source.label + place + problem.message)))
            }
            var byURL: [String: Int] = [:]
            let base = interactions.count
            for (index, interaction) in source.document.interactions.enumerated() where byURL[interaction.request.url] == nil {
                byURL[interaction.request.url] = base + index
            }
            for (index, interaction) in source.document.interactions.enumerated() {
                var next: Int?
                if let response = interaction.response, (300..<400).contains(response.status), let location = response.headers["Location"],
                    let resolved = URL(string: location, relativeTo: URL(string: interaction.request.url)),
                    let found = byURL[resolved.absoluteString], found > base + index
                {
                    next = found
                }
                var row = describe(interaction, at: index, start: first, cassette: number, findings: findings[index] ?? [], next: next)
                if let pair = source.pairs[index], case .object(var members) = row {
                    members.append(JSONMember(key: "pair", value: JSONNode(Self.number(base + pair))))
                    row = .object(members)
                }
                interactions.append(row)
            }
        }
        var bytes = JSONWriter.compact(
            Self.object([
                ("cassettes", .array(cassettes.map { JSONNode($0) })), ("interactions", .array(interactions.map { JSONNode($0) })),
            ]))
        // `<`, `>` and `&` only occur inside strings: written as escapes, no text in a string can
        // end the <script> element or start a comment.
        if bytes.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) {
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 64)
            for byte in bytes {
                switch byte {
                case 0x3C: escaped.append(contentsOf: Array("\\u003c".utf8))
                case 0x3E: escaped.append(contentsOf: Array("\\u003e".utf8))
                case 0x26: escaped.append(contentsOf: Array("\\u0026".utf8))
                default: escaped.append(byte)
                }
            }
            bytes = escaped
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { JSONMember(key: key, value: JSONNode($0)) } })
    }

    private static func number(_ value: Int) -> JSONValue { .number(String(value)) }

    private static func number(_ value: Double) -> JSONValue { value.isFinite ? .number(String(value)) : .null }

    /// The interaction a finding is about (`interactions[3]…`), or nil for the whole cassette.
    private func interactionIndex(of problem: CassetteFormatError.Problem) -> Int? {
        guard let components = problem.path?.components, components.count >= 2, case .key(let key) = components[0],
            key == "interactions" || key == "entries", case .index(let index) = components[1]
        else { return nil }
        return index
    }

    private func describe(
        _ interaction: Interaction, at index: Int, start: Date?, cassette: Int, findings: [JSONNode], next: Int?
    ) -> JSONValue {
        let response = interaction.response
        var members: [(String, JSONValue?)] = [
            ("n", Self.number(InteractionSummary.number(ofIndex: index))), ("cassette", Self.number(cassette)),
            ("method", .string(interaction.request.method)), ("outcome", .string(InteractionSummary.outcome(of: interaction))),
            ("timing", .string(InteractionSummary.timing(of: interaction))),
            ("notes", .array(InteractionSummary.notes(of: interaction).map { JSONNode(.string($0)) })),
            ("latency", interaction.latency.map { .string($0.description) }),
            ("url", .string(interaction.request.url)), ("status", response.map { Self.number($0.status) } ?? .null),
            ("size", Self.number(response?.body.data.count ?? 0)), ("type", .string(response?.headers["Content-Type"] ?? "")),
            ("findings", .array(findings)), ("next", next.map { Self.number($0) }),
            (
                "request",
                Self.object([
                    ("headers", pairs(interaction.request.headers)),
                    ("body", body(interaction.request.body.data, interaction.request.headers["Content-Type"])),
                ])
            ),
        ]
        if let error = interaction.error {
            members.append(("error", .string(error.code.name ?? "URLError \(error.code.rawValue)")))
            members.append(("afterBytes", error.afterBytes.map { Self.number($0) }))
        }
        if let response {
            members.append(
                (
                    "response",
                    Self.object([
                        ("headers", pairs(response.headers)), ("body", body(response.body.data, response.headers["Content-Type"])),
                    ])
                ))
            if (300..<400).contains(response.status) { members.append(("location", response.headers["Location"].map { .string($0) })) }
            if let stream = response.stream {
                members.append(
                    (
                        "events",
                        .array(
                            stream.chunks.map { JSONNode(Self.object([("at", Self.number($0.at)), ("size", Self.number($0.data.count))])) })
                    ))
            }
        }
        // The waterfall draws what a replay does: the latency written in the cassette, when it has one.
        if let timing = InteractionSummary.replayedTiming(of: interaction) {
            members.append(("firstByte", Self.number(timing.firstByte)))
            members.append(("duration", Self.number(timing.duration)))
        }
        if let at = interaction.recordedAt, let start { members.append(("start", Self.number(at.timeIntervalSince(start)))) }
        return Self.object(members)
    }

    private func pairs(_ headers: Interaction.Headers) -> JSONValue {
        .array(headers.map { JSONNode(.array([JSONNode(.string($0.name)), JSONNode(.string($0.value))])) })
    }

    /// A body as the page shows it, by what it is (``BodyContent``, as matching reads it).
    private func body(_ data: Data, _ contentType: String?) -> JSONValue {
        let type = (contentType ?? "").lowercased()
        let truncated = data.count > Self.bodyLimit
        var members: [(String, JSONValue?)] = [("size", Self.number(data.count)), ("truncated", .bool(truncated))]
        let head = data.prefix(Self.bodyLimit)
        // A body cut short is never shown as JSON (the page parses what it is told is JSON), so a
        // large one is read only for its multipart parts.
        let reads = !data.isEmpty && (!truncated || Multipart.isFormData(contentType: contentType))
        let content = reads ? BodyContent(data, contentType: contentType) : nil
        if data.isEmpty {
            members.append(("kind", .string("empty")))
        } else if case .multipart(let multipart) = content {
            members.append(("kind", .string("multipart")))
            members.append(
                (
                    "parts",
                    .array(
                        multipart.parts.map { part in
                            let text = UTF8Validation.isValid(part.body) ? String(decoding: part.body.prefix(4_096), as: UTF8.self) : nil
                            return JSONNode(
                                Self.object([
                                    ("name", .string(part.name ?? "")), ("filename", .string(part.filename ?? "")),
                                    ("type", .string(part.contentType ?? "")), ("size", Self.number(part.body.count)),
                                    ("text", text.map { .string($0) } ?? .null),
                                ]))
                        })
                ))
        } else if type.hasPrefix("image/"), !truncated {
            members.append(("kind", .string("image")))
            members.append(("type", .string(String(type.prefix { $0 != ";" }))))
            members.append(("base64", .string(data.base64EncodedString())))
        } else if UTF8Validation.isValid(head) || (truncated && UTF8Validation.isValid(head.dropLast(3))) {
            let kind: String
            switch content {
            case .json: kind = "json"
            case .form: kind = "form"
            default: kind = type.contains("x-www-form-urlencoded") ? "form" : "text"
            }
            members.append(("kind", .string(kind)))
            members.append(("text", .string(String(decoding: head, as: UTF8.self))))
        } else {
            members.append(("kind", .string("binary")))
            members.append(
                (
                    "hex",
                    .string(
                        data.prefix(256).map { byte in
                            String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
                        }.joined(separator: " "))
                ))
        }
        return Self.object(members)
    }
}
