import Foundation

/// Parses an HTTP-message cassette (`docs/HTTPMessageFormat.md`) into a ``CassetteDocument``,
/// collecting every problem with its line, column and place in the cassette instead of stopping
/// at the first one.
struct HTTPMessageReader {
    private(set) var problems: [CassetteFormatError.Problem] = []
    /// The line and column of each header field's value, by its place in the cassette
    /// (`interactions[0].response.headers["Content-Length"]`), when set to a dictionary before
    /// reading: what `cassette lint` points its warnings at.
    var placesOfHeaders: [JSONPath: (line: Int, column: Int)]?
    let bytes: [UInt8]
    let lines: [Range<Int>]
    var index = 0

    typealias Syntax = HTTPMessageSyntax

    init(_ data: Data) {
        var bytes = Array(data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        // A file whose every line ends in CRLF was converted whole (a Windows checkout with
        // autocrlf): it reads as the LF file it was written as, bodies included. A file with some
        // CRLF lines (a pasted `curl -i`) keeps its bytes: there the `\r`s are the message's own.
        if Self.endsEveryLineWithCRLF(bytes) {
            bytes = Self.withoutCRBeforeLF(bytes)
        }
        self.bytes = bytes
        self.lines = HTTPMessageSyntax.lines(of: bytes)
    }

    static func endsEveryLineWithCRLF(_ bytes: [UInt8]) -> Bool {
        var sawLineBreak = false
        for i in bytes.indices where bytes[i] == Syntax.newline {
            guard i > 0, bytes[i - 1] == Syntax.carriageReturn else { return false }
            sawLineBreak = true
        }
        return sawLineBreak
    }

    static func withoutCRBeforeLF(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for i in bytes.indices where !(bytes[i] == Syntax.carriageReturn && i + 1 < bytes.count && bytes[i + 1] == Syntax.newline) {
            out.append(bytes[i])
        }
        return out
    }

    mutating func readDocument() -> CassetteDocument {
        var document = CassetteDocument()
        if lines.allSatisfy({ string(bytes[$0]).allSatisfy(\.isWhitespace) }) {
            // As for JSON: an empty file is more likely a failed save or a wrong path than a cassette.
            report(
                "the file is empty; expected \"# version: 1\" or a request line like \"GET https://api.example.com/users HTTP/1.1\"",
                at: .root, line: 0, column: 0)
            return document
        }
        // The preamble: blank lines and comments, some of which say something.
        while index < lines.count, !Syntax.isSeparator(line(index)) {
            let text = string(Syntax.withoutCarriageReturn(line(index)))
            if text.trimmingCharacters(in: .whitespaces).isEmpty {
                index += 1
                continue
            }
            guard Syntax.isComment(line(index)) else { break }  // a file may start with its first request
            readPreambleComment(text, into: &document)
            index += 1
        }
        while index < lines.count {
            let path = JSONPath([.key("interactions"), .index(document.interactions.count)])
            if let interaction = readInteraction(at: path) {
                document.interactions.append(interaction)
            } else {
                // Go on after the interaction that could not be read, to report the next ones too.
                while index < lines.count, !Syntax.isSeparator(line(index)) { index += 1 }
            }
        }
        return document
    }

    // MARK: Interaction

    mutating func readInteraction(at path: JSONPath) -> Interaction? {
        let problemsBefore = problems.count
        var fields = SeparatorFields()
        var separatorLine: Int?
        if Syntax.isSeparator(line(index)) {
            separatorLine = index
            fields = readSeparator(at: path)
            index += 1
        }
        // Blank lines and comments; `# scenario: TEXT` says what the interaction simulates.
        var scenario: String?
        var challengeLines: [ChallengeLine] = []
        while index < lines.count, Syntax.isBlank(line(index)) || Syntax.isComment(line(index)) {
            if let value = readScenarioComment(at: path) { scenario = value }
            if let challenge = readChallengeComment(number: challengeLines.count, at: path) { challengeLines.append(challenge) }
            index += 1
        }
        guard index < lines.count, !Syntax.isSeparator(line(index)) else {
            report(
                "expected a request line like \"GET https://api.example.com/users HTTP/1.1\" after \"###\"",
                at: path.appending("request"), line: separatorLine ?? max(0, index - 1), column: 0)
            return nil
        }

        // Request
        let requestPath = path.appending("request")
        let requestLine = readRequestLine(at: requestPath)
        index += 1
        let requestHeaders = readHeaders(at: requestPath.appending("headers"))
        var requestBody = Interaction.Body.empty
        if index < lines.count, Syntax.isBlank(line(index)) {
            index += 1
            requestBody = readBody(
                until: { Syntax.isSeparator($0) || Syntax.isStatusLine($0) },
                base64: fields.requestBase64, contentType: requestHeaders["Content-Type"],
                declaredLength: Syntax.declaredLength(requestHeaders, status: nil),
                at: requestPath.appending("body"))
        }

        // Each challenge's response, then the response
        var challenges: [Interaction.Challenge] = []
        for (number, challengeLine) in challengeLines.enumerated() {
            let place = path.appending("challenges").appending(number).appending("response")
            guard index < lines.count, Syntax.isStatusLine(line(index)) else {
                report(
                    "\"# challenge:\" line \(number + 1) needs its response (a status line like \"HTTP/1.1 401 Unauthorized\") after the request",
                    at: place, line: challengeLine.line, column: 0)
                break
            }
            let statusLine = index
            guard
                let read = readResponse(
                    base64: challengeLine.base64, endsAtStatusLines: true, answering: requestLine?.method, at: place)
            else { continue }
            if let problem = CassetteRules.challengeResponseProblem(read) {
                report(problem.message, at: place.appending(problem.field), line: statusLine, column: 0)
            }
            if var challenge = challengeLine.challenge {
                challenge.response = read
                challenges.append(challenge)
            }
        }

        // Response
        var response: Interaction.Response?
        if index < lines.count, Syntax.isStatusLine(line(index)) {
            response = readResponse(base64: fields.responseBase64, answering: requestLine?.method, at: path.appending("response"))
            response?.url = fields.responseURL
            if let pieces = fields.stream, let whole = response?.body.data {
                if let stream = Interaction.StreamedBody(cutting: whole, into: pieces) {
                    response?.stream = stream
                } else {
                    let total = pieces.reduce(0) { $0 + $1.size }
                    report(
                        "the stream's chunks hold \(total) bytes but the response body holds \(whole.count); stream=AT:SIZE,… "
                            + "gives each chunk's arrival in seconds and its size in bytes, and the sizes add up to the body",
                        at: path.appending("response").appending("stream"), line: separatorLine ?? index, column: 0)
                }
            }
        }
        var webSocket: Interaction.WebSocketConversation? = fields.emptyWebSocket ? .init() : nil
        if fields.emptyWebSocket, index < lines.count, Syntax.isWebSocketLine(line(index)) {
            report(
                "webSocket=empty says the conversation has no messages, but messages follow: remove webSocket=empty",
                at: path.appending("webSocket"), line: separatorLine ?? index, column: 0)
        } else if response?.status == 101, index < lines.count, Syntax.isWebSocketLine(line(index)) {
            webSocket = readWebSocketMessages(at: path.appending("webSocket").appending("messages"))
        }
        if let conversation = webSocket {
            for problem in CassetteRules.webSocketProblems(conversation, status: response?.status) {
                let place = problem.index.map { " (message \($0 + 1))" } ?? ""
                let messagePath = problem.index.map { path.appending("webSocket").appending("messages").appending($0) }
                report(problem.message + place, at: messagePath ?? path.appending("webSocket"), line: separatorLine ?? index, column: 0)
            }
        }
        while index < lines.count, !Syntax.isSeparator(line(index)) {
            // Only a body or a blank line can end a message, so this is text after a complete one.
            if !Syntax.isBlank(line(index)) {
                report(
                    "unexpected text after the response; start the next interaction with a \"###\" line",
                    at: path, line: index, column: 0)
                index += 1
                return nil
            }
            index += 1
        }

        let at = separatorLine ?? index
        if response == nil {
            if fields.error == nil, !fields.errorWritten {  // a wrong error=… is reported already
                report(
                    "expected a response (a status line like \"HTTP/1.1 200 OK\") or an error=… on the \"###\" line, or both",
                    at: path, line: at, column: 0)
            }
            if fields.responseURL != nil {
                report("responseURL needs a response", at: path.appending("response").appending("url"), line: at, column: 0)
            }
            if fields.stream != nil {
                report("stream=… needs a response", at: path.appending("response").appending("stream"), line: at, column: 0)
            }
            if fields.responseBase64 {
                report("responseBody=base64 needs a response", at: path.appending("response").appending("body"), line: at, column: 0)
            }
        }
        if let afterBytes = fields.error?.afterBytes,
            let problem = CassetteRules.afterBytesProblem(afterBytes, bodySize: response?.body.data.count)
        {
            report(problem, at: path.appending("error").appending("afterBytes"), line: at, column: 0)
        }
        if let stream = response?.stream {
            for problem in CassetteRules.streamProblems(stream, timing: fields.timing) {
                let place = problem.chunk.map { " (chunk \($0 + 1) of stream=)" } ?? ""
                report(problem.message + place, at: path.appending("response").appending("stream"), line: at, column: 0)
            }
        }
        guard problems.count == problemsBefore, let requestLine else { return nil }
        return Interaction(
            recordedAt: fields.recordedAt,
            request: .init(method: requestLine.method, url: requestLine.url, headers: requestHeaders, body: requestBody),
            challenges: challenges, response: response, error: fields.error, timing: fields.timing, latency: fields.latency,
            webSocket: webSocket,
            scenario: scenario)
    }

    /// WebSocket messages after a `101`: each a `>>> AT KIND [CODE] [base64]` line (`<<<` from the
    /// server), then its payload, up to the next message, the next `###` or the end.
    mutating func readWebSocketMessages(at path: JSONPath) -> Interaction.WebSocketConversation? {
        var messages: [Interaction.WebSocketMessage] = []
        var valid = true
        while index < lines.count, Syntax.isWebSocketLine(line(index)) {
            let messagePath = path.appending(messages.count)
            let headerLine = index
            let text = Syntax.withoutCarriageReturn(line(index))
            let words = self.words(in: text, from: 0)
            index += 1
            let kinds = Interaction.WebSocketMessage.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            guard words.count >= 3, let at = Double(words[1].word), at.isFinite else {
                report(
                    "expected a message line like \">>> 0.012 text\" (who sends it, seconds from the 101, the kind: \(kinds))",
                    at: messagePath, line: headerLine, column: 0)
                valid = false
                _ = readBody(
                    until: { Syntax.isSeparator($0) || Syntax.isWebSocketLine($0) }, base64: false, contentType: nil, at: messagePath)
                continue
            }
            guard let kind = Interaction.WebSocketMessage.Kind(rawValue: words[2].word) else {
                report(
                    "unknown kind \(CassetteRules.quoted(words[2].word)): expected one of \(kinds)", at: messagePath.appending("kind"),
                    line: headerLine, column: words[2].column)
                valid = false
                _ = readBody(
                    until: { Syntax.isSeparator($0) || Syntax.isWebSocketLine($0) }, base64: false, contentType: nil, at: messagePath)
                continue
            }
            var code: Int?
            var base64 = false
            for extra in words.dropFirst(3) {
                if extra.word == Syntax.base64Marker {
                    base64 = true
                } else if let number = Int(extra.word), kind == .close, code == nil {
                    code = number
                } else {
                    report(
                        "unexpected \(CassetteRules.quoted(extra.word)) on a message line: after the kind come a close's code and \"base64\"",
                        at: messagePath, line: headerLine, column: extra.column)
                    valid = false
                }
            }
            let payload = readBody(
                until: { Syntax.isSeparator($0) || Syntax.isWebSocketLine($0) }, base64: base64, contentType: nil, at: messagePath)
            messages.append(
                Interaction.WebSocketMessage(
                    from: text.first == UInt8(ascii: ">") ? .client : .server, at: at, kind: kind, data: payload.data, code: code))
        }
        return valid ? Interaction.WebSocketConversation(messages: messages) : nil
    }

    // MARK: Messages

    mutating func readRequestLine(at path: JSONPath) -> (method: String, url: String)? {
        let text = Syntax.withoutCarriageReturn(line(index))
        let parts = words(in: text, from: 0)
        let example = "like \"GET https://api.example.com/users HTTP/1.1\""
        guard parts.count == 2 || parts.count == 3 else {
            report("expected a request line \(example), found \(CassetteRules.quoted(string(text)))", at: path, line: index, column: 0)
            return nil
        }
        let method = parts[0].word
        let url = parts[1].word
        var valid = true
        if let problem = CassetteRules.methodProblem(method) {
            report(problem, at: path.appending("method"), line: index, column: parts[0].column)
            valid = false
        }
        if url.hasPrefix("/") {
            report(
                "expected an absolute URL (https://host/path) after the method, found \(CassetteRules.quoted(url)); the file "
                    + "cannot guess the scheme and host of a path alone", at: path.appending("url"), line: index, column: parts[1].column)
            valid = false
        } else if let problem = CassetteRules.urlProblem(url) {
            report(problem, at: path.appending("url"), line: index, column: parts[1].column)
            valid = false
        }
        if parts.count == 3, !parts[2].word.hasPrefix("HTTP/") {
            report(
                "expected the HTTP version (\"HTTP/1.1\") or nothing after the URL, found \(CassetteRules.quoted(parts[2].word))",
                at: path, line: index, column: parts[2].column)
            valid = false
        }
        return valid ? (method, url) : nil
    }

    /// A file holding one response and nothing else (`curl -i URL > response.http`): its body is
    /// every byte after the blank line, to the end of the file.
    mutating func readLoneResponse() -> Interaction.Response? {
        while index < lines.count, Syntax.isBlank(line(index)) { index += 1 }
        guard index < lines.count, Syntax.isStatusLine(line(index)) else {
            report(
                "expected a status line like \"HTTP/1.1 200 OK\"", at: .root.appending("status"), line: min(index, max(0, lines.count - 1)),
                column: 0)
            return nil
        }
        return readResponse(base64: false, trimsBody: false, at: .root)
    }

    /// A response from its status line on. `endsAtStatusLines`: another response follows (after a
    /// challenged one), so its body ends at a status line too. `method`: the request's, when known
    /// (the answer to a `HEAD` promises no body, whatever its `Content-Length`).
    mutating func readResponse(
        base64: Bool, trimsBody: Bool = true, endsAtStatusLines: Bool = false, answering method: String? = nil, at path: JSONPath
    ) -> Interaction.Response? {
        var status = Syntax.status(ofStatusLine: line(index)) ?? 0
        index += 1
        var headers = readHeaders(at: path.appending("headers"))
        // `curl -i` prints an interim "HTTP/1.1 100 Continue" head before the response itself.
        while status == 100, index + 1 < lines.count, Syntax.isBlank(line(index)), let next = Syntax.status(ofStatusLine: line(index + 1)) {
            status = next
            index += 2
            headers = readHeaders(at: path.appending("headers"))
        }
        if let problem = CassetteRules.statusProblem(status) {
            report(problem, at: path.appending("status"), line: index - 1, column: 0)
        }
        var body = Interaction.Body.empty
        if index < lines.count, Syntax.isBlank(line(index)) {
            index += 1
            if trimsBody {
                // A 101's body (there should be none) ends where its WebSocket messages begin.
                body = readBody(
                    until: {
                        Syntax.isSeparator($0) || (status == 101 && Syntax.isWebSocketLine($0))
                            || (endsAtStatusLines && Syntax.isStatusLine($0))
                    }, base64: base64,
                    contentType: headers["Content-Type"], declaredLength: Syntax.declaredLength(headers, status: status, answering: method),
                    at: path.appending("body"))
            } else {
                let start = index < lines.count ? lines[index].lowerBound : bytes.count
                body = Interaction.Body(read: Data(bytes[start...]), contentType: headers["Content-Type"])
                index = lines.count
            }
        }
        return Interaction.Response(status: status, headers: headers, body: body)
    }

    /// Header lines up to a blank line, a status line, a `###` line or the end (none consumed).
    mutating func readHeaders(at path: JSONPath) -> Interaction.Headers {
        var headers = Interaction.Headers()
        while index < lines.count {
            let text = Syntax.withoutCarriageReturn(line(index))
            if text.isEmpty || Syntax.isSeparator(text) || Syntax.isStatusLine(text) { break }
            defer { index += 1 }
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon > text.startIndex else {
                report(
                    "expected a header line \"Name: value\", or a blank line before the body, found \(CassetteRules.quoted(string(text)))",
                    at: path, line: index, column: 0)
                continue
            }
            let name = string(text[..<colon])
            var valueStart = colon + 1
            // One space (or tab) after the colon belongs to the format; the rest is the value, exactly.
            if valueStart < text.endIndex, text[valueStart] == Syntax.space || text[valueStart] == Syntax.tab { valueStart += 1 }
            let value = string(text[valueStart...])
            if let problem = CassetteRules.headerNameProblem(name) {
                report(problem, at: path.appending(name), line: index, column: 0)
            } else if let problem = CassetteRules.headerValueProblem(name: name, value: value) {
                report(problem, at: path.appending(name), line: index, column: valueStart - text.startIndex)
            } else if !UTF8Validation.isValid(Array(text)) {
                report("the header line is not valid UTF-8", at: path.appending(name), line: index, column: 0)
            } else {
                headers.add(name, value)
                if placesOfHeaders != nil {
                    let valuePlace = place(line: index, column: valueStart - text.startIndex)
                    placesOfHeaders?[path.appending(name)] = valuePlace
                }
            }
        }
        return headers
    }

    /// The bytes from this line up to the first line where `ends` holds (or the end of the file),
    /// less up to two line breaks at their end: the writer's end of body and blank line — but
    /// never fewer bytes than `declaredLength` (`Content-Length`) when the text holds that many:
    /// a `curl -i` paste whose body ends in a line break keeps it, however many blank lines follow.
    mutating func readBody(
        until ends: (ArraySlice<UInt8>) -> Bool, base64: Bool, contentType: String?, declaredLength: Int? = nil, at path: JSONPath
    ) -> Interaction.Body {
        let firstLine = index
        while index < lines.count, !ends(line(index)) { index += 1 }
        let start = firstLine < lines.count ? lines[firstLine].lowerBound : bytes.count
        var end = index < lines.count ? lines[index].lowerBound : bytes.count
        end = max(start, end)
        // A text body is never cut below its declared length (base64 ones are exact anyway).
        let floor = base64 ? start : declaredLength.map { start + $0 }.flatMap { $0 <= end ? $0 : nil } ?? start
        for _ in 0..<2 where end > floor && bytes[end - 1] == Syntax.newline {
            end -= 1
            if end > floor, bytes[end - 1] == Syntax.carriageReturn { end -= 1 }
        }
        let content = bytes[start..<end]
        guard base64 else { return Interaction.Body(read: Data(content), contentType: contentType) }
        guard let data = Base64.decode(content, allowingWhitespace: true) else {
            let encoded = content.filter { $0 != Syntax.newline && $0 != Syntax.carriageReturn && $0 != Syntax.space && $0 != Syntax.tab }
            report(
                "the body is marked base64 on the \"###\" line but is not valid base64: "
                    + JSONCassetteReader.base64Problem(String(decoding: encoded, as: UTF8.self)).replacingOccurrences(
                        of: ", on one line", with: ""),
                at: path, line: firstLine, column: 0)
            return .empty
        }
        return Interaction.Body(unchecked: data, form: .base64)
    }

    // MARK: Helpers

    func line(_ i: Int) -> ArraySlice<UInt8> {
        bytes[lines[i]]
    }

    func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The words of `text` separated by spaces or tabs, from byte `start`, each with its 0-based
    /// byte column.
    func words(in text: ArraySlice<UInt8>, from start: Int) -> [(word: String, column: Int)] {
        var words: [(String, Int)] = []
        var i = text.startIndex + min(start, text.count)
        while i < text.endIndex {
            while i < text.endIndex, text[i] == Syntax.space || text[i] == Syntax.tab { i += 1 }
            let wordStart = i
            while i < text.endIndex, text[i] != Syntax.space, text[i] != Syntax.tab { i += 1 }
            if i > wordStart { words.append((string(text[wordStart..<i]), wordStart - text.startIndex)) }
        }
        return words
    }

    /// Reports `message` at 0-based `line` and byte `column` of that line (shown 1-based, the
    /// column counted in Unicode scalars).
    mutating func report(_ message: String, at path: JSONPath, line: Int, column: Int) {
        let (line, column) = place(line: line, column: column)
        problems.append(.init(path: path, line: line, column: column, message: message))
    }

    /// 0-based `line` and byte `column` of that line as messages show them: 1-based, the column
    /// counted in Unicode scalars.
    func place(line: Int, column: Int) -> (line: Int, column: Int) {
        var scalarColumn = 1
        if line < lines.count {
            let range = lines[line]
            let end = min(range.lowerBound + max(0, column), range.upperBound)
            for i in range.lowerBound..<end where bytes[i] & 0xC0 != 0x80 { scalarColumn += 1 }
        }
        return (line + 1, scalarColumn)
    }
}
