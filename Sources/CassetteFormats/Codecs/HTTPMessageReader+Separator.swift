import Foundation

// The separator line of an HTTP-message cassette: `### N recorded … ###` and the fields of the
// interaction it opens (time, latency, error, cut, stream, WebSocket), each read to its place.
extension HTTPMessageReader {
    // MARK: Separator

    struct SeparatorFields {
        var recordedAt: Date?
        var timing: Interaction.Timing?
        var error: Interaction.TransportError?
        var latency: Latency?
        var responseURL: String?
        var requestBase64 = false
        var responseBase64 = false
        /// `stream=AT:SIZE,…`: when each chunk of the response body arrived, and its size.
        var stream: [(at: TimeInterval, size: Int)]?
        /// Whether the line has an `error=…`, valid or not.
        var errorWritten = false
        /// `webSocket=empty`: a conversation without messages.
        var emptyWebSocket = false
    }

    mutating func readSeparator(at path: JSONPath) -> SeparatorFields {
        typealias Field = HTTPMessageSyntax.Field
        var fields = SeparatorFields()
        var seen: [Field: Int] = [:]
        var firstByte: Double?
        var duration: Double?
        var afterBytes: Int?
        var errorCode: Interaction.TransportError.Code?
        let text = Syntax.withoutCarriageReturn(line(index))
        for (word, column) in words(in: text, from: 3) {
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            guard parts.count == 2, let field = Field(rawValue: key) else {
                let known = Field.allCases.map(\.rawValue)
                let guess = JSONCassetteReader.closest(to: key, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                let what =
                    parts.count == 2
                    ? "unknown field \(CassetteRules.quoted(key))\(guess)" : "expected key=value, found \(CassetteRules.quoted(word))"
                report("\(what) on the \"###\" line; known fields: \(known.joined(separator: ", "))", at: path, line: index, column: column)
                continue
            }
            let value = String(parts[1])
            let fieldPath = Self.path(of: field, in: path)
            if seen[field] != nil {
                report("\(key) appears twice on the \"###\" line", at: fieldPath, line: index, column: column)
                continue
            }
            seen[field] = column
            let valueColumn = column + key.utf8.count + 1
            func bad(_ message: String) { report(message, at: fieldPath, line: index, column: valueColumn) }
            switch field {
            case .recordedAt:
                switch Timestamp.parse(value) {
                case .success(let date): fields.recordedAt = date
                case .failure(let error): bad(error.message)
                }
            case .firstByte, .duration:
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0 else {
                    bad("expected \(key) to be a number of seconds, zero or more, found \(CassetteRules.quoted(value))")
                    continue
                }
                if field == .firstByte { firstByte = seconds } else { duration = seconds }
            case .error:
                if let code = Interaction.TransportError.Code(name: value) {
                    errorCode = code
                } else if let number = Int(value) {
                    errorCode = .init(rawValue: number)
                } else {
                    bad(CassetteRules.unknownErrorCodeProblem(value))
                }
            case .afterBytes:
                guard let count = Int(value), count >= 0 else {
                    bad("expected afterBytes to be a number of bytes, zero or more, found \(CassetteRules.quoted(value))")
                    continue
                }
                afterBytes = count
            case .latency:
                switch Latency.read(value) {
                case .success(let latency): fields.latency = latency
                case .failure(let error): bad(error.message)
                }
            case .responseURL:
                if let problem = CassetteRules.urlProblem(value) { bad(problem) } else { fields.responseURL = value }
            case .stream:
                var pieces: [(at: TimeInterval, size: Int)] = []
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let pair = item.split(separator: ":", omittingEmptySubsequences: false)
                    guard pair.count == 2, let at = Double(pair[0]), at.isFinite, at >= 0, let size = Int(pair[1]), size > 0 else {
                        pieces = []
                        break
                    }
                    pieces.append((at, size))
                }
                if pieces.isEmpty {
                    bad(
                        "expected stream=AT:SIZE,… (each chunk's arrival in seconds from the start of the request, and its size in bytes, "
                            + "like stream=0.1:24,0.35:24), found \(CassetteRules.quoted(value))")
                } else {
                    fields.stream = pieces
                }
            case .webSocket:
                guard value == HTTPMessageSyntax.emptyConversation else {
                    bad("the only value is webSocket=empty (a conversation without messages), found webSocket=\(value)")
                    continue
                }
                fields.emptyWebSocket = true
            case .requestBody, .responseBody:
                guard value == HTTPMessageSyntax.base64Marker else {
                    bad("the only body marker is \(key)=base64, found \(key)=\(value)")
                    continue
                }
                if field == .requestBody { fields.requestBase64 = true } else { fields.responseBase64 = true }
            }
        }
        switch (firstByte, duration) {
        case (let firstByte?, let duration?):
            let timing = Interaction.Timing(firstByte: firstByte, duration: duration)
            if let problem = CassetteRules.timingProblem(timing) {
                report(problem, at: path.appending("timing"), line: index, column: seen[.firstByte] ?? 0)
            } else {
                fields.timing = timing
            }
        case (nil, nil):
            break
        default:
            let (given, missing) = firstByte == nil ? ("duration", "firstByte") : ("firstByte", "duration")
            report(
                "\(given) needs \(missing) too: a timing is both", at: path.appending("timing"), line: index,
                column: seen[firstByte == nil ? .duration : .firstByte] ?? 0)
        }
        fields.errorWritten = seen[.error] != nil
        if let errorCode {
            fields.error = .init(code: errorCode, afterBytes: afterBytes)
        } else if afterBytes != nil, seen[.error] == nil {
            report(
                "afterBytes needs error=… too: it says after how many bytes the error cuts the response",
                at: path.appending("error").appending("afterBytes"), line: index, column: seen[.afterBytes] ?? 0)
        }
        return fields
    }

    static func path(of field: HTTPMessageSyntax.Field, in path: JSONPath) -> JSONPath {
        switch field {
        case .recordedAt: return path.appending("recordedAt")
        case .firstByte: return path.appending("timing").appending("firstByte")
        case .duration: return path.appending("timing").appending("duration")
        case .error: return path.appending("error").appending("code")
        case .afterBytes: return path.appending("error").appending("afterBytes")
        case .latency: return path.appending("latency")
        case .responseURL: return path.appending("response").appending("url")
        case .requestBody: return path.appending("request").appending("body")
        case .responseBody: return path.appending("response").appending("body")
        case .stream: return path.appending("response").appending("stream")
        case .webSocket: return path.appending("webSocket")
        }
    }
}
