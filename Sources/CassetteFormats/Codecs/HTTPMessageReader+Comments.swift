import Foundation

// The `#` comment lines of an HTTP-message cassette that say something: in the preamble
// `# version: 1`, `# recordedWith: TEXT` and `# metadata: {…}`; after an interaction's `###`
// line, `# scenario: TEXT` and `# challenge: ANSWER METHOD "REALM"`. Every other comment is the reader's to skip.
extension HTTPMessageReader {
    // MARK: Comments

    mutating func readPreambleComment(_ text: String, into document: inout CassetteDocument) {
        if let value = commentValue("recordedWith", in: text) {
            setRecordedWith(value, in: &document)
            return
        }
        let body = text.dropFirst().trimmingCharacters(in: .whitespaces)
        if let value = value(of: "version", in: body) {
            if Int(value).map(HTTPMessageCassetteCodec.supportedVersions.contains) != true {
                let supported = HTTPMessageCassetteCodec.supportedVersions.map(String.init).joined(separator: ", ")
                report(
                    "unsupported format version \(CassetteRules.quoted(value)); this version of Cassette reads version \(supported). A newer Cassette may read it.",
                    at: .root.appending("version"), line: index, column: text.utf8.count - value.utf8.count)
            }
        } else if let value = value(of: "metadata", in: body) {
            readMetadata(value, column: text.utf8.count - value.utf8.count, into: &document)
        }
    }

    /// The line at `index`, when it is `# scenario: TEXT` after the `###` line of the interaction
    /// at `path`: TEXT, or nil (with the problem reported when TEXT is not one line).
    mutating func readScenarioComment(at path: JSONPath) -> String? {
        let text = string(Syntax.withoutCarriageReturn(line(index)))
        guard let value = commentValue("scenario", in: text) else { return nil }
        if let problem = CassetteRules.scenarioProblem(value) {
            report(problem, at: path.appending("scenario"), line: index, column: text.utf8.count - value.utf8.count)
            return nil
        }
        return value
    }

    /// What a `# challenge: ANSWER METHOD ["REALM"] [base64]` line says: a challenge without its
    /// response, which follows the request; `base64` when that response's body is written so.
    struct ChallengeLine {
        var challenge: Interaction.Challenge?
        var base64: Bool
        var line: Int
    }

    /// The line at `index`, when it is `# challenge: …` after the `###` line: what it says, with
    /// `challenge` nil (and the problem reported) when it says it wrongly. `number` is its place
    /// among the interaction's challenges.
    mutating func readChallengeComment(number: Int, at path: JSONPath) -> ChallengeLine? {
        let text = string(Syntax.withoutCarriageReturn(line(index)))
        guard let value = commentValue("challenge", in: text) else { return nil }
        let place = path.appending("challenges").appending(number)
        let column = text.utf8.count - value.utf8.count
        var rest = Substring(value)
        var base64 = false
        if rest.hasSuffix(" " + Syntax.base64Marker) {
            base64 = true
            rest = rest.dropLast(Syntax.base64Marker.count + 1)
        }
        let words = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count >= 2 else {
            report(
                "expected \"# challenge: ANSWER METHOD \"REALM\"\", like \"# challenge: useCredential HTTPBasic \"api\"\"",
                at: place, line: index, column: column)
            return ChallengeLine(challenge: nil, base64: base64, line: index)
        }
        let read = CassetteRules.challengeAnswer(String(words[0]))
        if let problem = read.problem { report(problem, at: place.appending("answer"), line: index, column: column) }
        let method = String(words[1])
        let methodProblem = CassetteRules.challengeMethodProblem(method)
        if let methodProblem { report(methodProblem, at: place.appending("method"), line: index, column: column) }
        var realm: String?
        var realmRead = true
        if words.count == 3 {
            realm = (try? JSONParser.parse(Data(words[2].utf8)))?.value.stringValue
            if realm == nil {
                report(
                    "expected the realm as a JSON string like \"api\", found \(CassetteRules.quoted(String(words[2])))",
                    at: place.appending("realm"), line: index, column: column)
                realmRead = false
            } else if let realm, let problem = CassetteRules.challengeRealmProblem(realm) {
                report(problem, at: place.appending("realm"), line: index, column: column)
                realmRead = false
            }
        }
        guard let answer = read.answer, methodProblem == nil, realmRead else {
            return ChallengeLine(challenge: nil, base64: base64, line: index)
        }
        let challenge = Interaction.Challenge(method: method, realm: realm, answer: answer, response: .init(status: 401))
        return ChallengeLine(challenge: challenge, base64: base64, line: index)
    }

    /// `# metadata: {"apiVersion":"2026-10-01"}`: the metadata as one line of JSON.
    mutating func readMetadata(_ value: String, column: Int, into document: inout CassetteDocument) {
        let path = JSONPath.root.appending("metadata")
        let node: JSONNode
        do {
            node = try JSONParser.parse(Data(value.utf8))
        } catch {
            report("the metadata is not JSON: \(error.message)", at: path, line: index, column: column + error.offset)
            return
        }
        var reader = MetadataLineReader()
        if let metadata = reader.readMetadata(node, at: path) { document.metadata = metadata }
        for problem in reader.problems { report(problem.message, at: problem.path, line: index, column: column + problem.offset) }
    }

    mutating func setRecordedWith(_ value: String, in document: inout CassetteDocument) {
        if let problem = CassetteRules.recordedWithProblem(value) {
            // What the writer refuses to write, the reader refuses to read.
            report(problem, at: .root.appending("recordedWith"), line: index, column: 0)
            return
        }
        document.recordedWith = value
    }

    /// TEXT of the comment line `text` when it is `# key: TEXT`: exact as the writer writes it
    /// (spaces kept), trimmed when spelt otherwise (`#key:TEXT`, `#   key:  TEXT  `).
    func commentValue(_ key: String, in text: String) -> String? {
        let written = "# \(key): "
        if text.hasPrefix(written) { return String(text.dropFirst(written.count)) }
        return value(of: key, in: text.dropFirst().trimmingCharacters(in: .whitespaces))
    }

    /// `VALUE` from `key: VALUE`.
    func value(of key: String, in comment: String) -> String? {
        guard comment.hasPrefix(key + ":") else { return nil }
        return comment.dropFirst(key.utf8.count + 1).trimmingCharacters(in: .whitespaces)
    }
}

/// Reads the JSON of a `# metadata:` line with the checks every JSON reader of Cassette makes.
private struct MetadataLineReader: JSONTreeReading {
    var problems: [(path: JSONPath, offset: Int, message: String)] = []
    var misspelt: Set<JSONMisspeltKey> = []
}
