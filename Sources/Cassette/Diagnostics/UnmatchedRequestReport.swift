import Foundation

/// What a developer reads when a request found no recorded match (docs/Architecture.md, "When a request has no match"): the request, the
/// cassette and mode searched, the closest recordings with each field that differs, whether a
/// match was already used, and what fixes it.
///
/// ```text
/// Cassette: no recorded interaction matches GET https://api.example.com/users?page=2 in cassette /…/Users.json (record mode none).
/// Request: GET https://api.example.com/users?page=2
///   Accept: application/json
///   Authorization: Bearer [REDACTED]
///   no body
/// The closest of its 2 recorded interactions:
///   #1 GET https://api.example.com/users?page=1
///     - query parameter "page": recorded "1", requested "2"
///   #2 POST https://api.example.com/users
///     - method: recorded POST, requested GET
///     - query parameter "page": recorded nothing, requested "2"
/// To fix: if "page" may differ, add .ignoringQueryParameters("page") to the cassette's matching; if the request is new, record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.
/// ```
///
/// Both requests are shown redacted (the tape's ``Redaction``), so no secret appears in it.
/// Recorded interactions are numbered from 1, in file order.
struct UnmatchedRequestReport {
    /// The request as compared: redacted.
    var request: Interaction.Request
    var file: URL
    var mode: RecordMode
    var rules: RequestMatching
    /// Every recorded request (redacted) and whether it already answered a request.
    var recorded: [(request: Interaction.Request, used: Bool)]
    /// How many recordings match but were all used.
    var usedUp: Int
    /// Who reads the advice: it names options, trait arguments or flags.
    var reader: AdviceReader = .code
    /// What else explains the miss, each shown on a line of its own before the advice.
    var notes: [String] = []

    /// The note for a cookie a recording set that has expired since, so the session no longer
    /// sends it (``PlaybackQueue/expiredCookies(lackedBy:at:)``).
    static func expiredCookieNote(name: String, interaction: Int, expired: Date) -> String {
        "the cookie \(name) set by interaction #\(interaction) expired on \(HTTPDate.format(expired)), "
            + "so the session no longer sends it; replay with time shifted (Tape.Options(time: .shifted), --time shifted), "
            + "or record the cassette again"
    }

    /// The note for recordings that matched but that `beforeReplay` declined (numbered from 1).
    static func declinedNote(_ numbers: [Int]) -> String {
        let list = numbers.map { "#\($0)" }.joined(separator: ", ")
        return numbers.count == 1
            ? "recorded interaction \(list) matches, but beforeReplay declined it (returned nil)"
            : "recorded interactions \(list) match, but beforeReplay declined them (returned nil)"
    }

    /// How many of the closest recordings are shown at most (those nearly as close as the closest).
    static let shownCandidates = 3
    /// How many differences are listed for each.
    static let shownDifferences = 6

    /// The report as a value, its text the description.
    var value: UnmatchedRequest {
        let near = nearest(closest())
        let candidates = near.map { candidate in
            UnmatchedRequest.Candidate(
                number: candidate.number, request: recorded[candidate.number - 1].request,
                alreadyUsed: recorded[candidate.number - 1].used, differences: candidate.differences)
        }
        return UnmatchedRequest(request: request, cassette: file, mode: mode, candidates: candidates, usedUp: usedUp, description: text)
    }

    /// The closest, and those nearly as close; far-off recordings are noise.
    private func nearest(_ ranked: [Candidate]) -> [Candidate] {
        if usedUp > 0 { return ranked.filter { $0.differences.isEmpty } }
        let best = ranked.first?.distance ?? 0
        return ranked.prefix(Self.shownCandidates).filter { $0.distance <= max(best * 2, best + 4) }
    }

    var text: String {
        var lines = [
            "Cassette: no recorded interaction matches \(request.method) \(request.url) in cassette \(file.path) (record mode \(mode))."
        ]
        lines.append("Request: \(request.method) \(request.url)")
        for (name, value) in request.headers { lines.append("  \(name): \(value)") }
        lines.append("  " + RequestDifference.summary(of: request.body))
        if let note = RequestDifference.multipartNote(request, as: "request's") { lines.append("Note: " + note) }

        let ranked = closest()
        if usedUp > 0 {
            // Only those that answered: a recording `beforeReplay` declined matches too, and has its own note.
            let numbers = ranked.filter { $0.differences.isEmpty && recorded[$0.number - 1].used }.map { "#\($0.number)" }
                .joined(separator: ", ")
            lines.append(
                usedUp == 1
                    ? "It matches recorded interaction \(numbers), which already answered an earlier request: each recorded interaction answers once."
                    : "It matches recorded interactions \(numbers), which all already answered earlier requests: each recorded interaction answers once."
            )
        } else if recorded.isEmpty {
            lines.append(
                "The cassette has no recorded interactions: when it was recorded, no request reached the tape. The code under test "
                    + "most likely sent its requests through another URLSession (URLSession.shared, or one it made itself) instead of "
                    + "tape.session or a configuration from tape.configure(_:).")
        } else {
            if rules.predicate != nil {
                lines.append("Matching uses a custom rule, which says no to every recording; the closest by method, URL and body:")
            } else {
                lines.append(
                    recorded.count == 1
                        ? "The cassette's only recorded interaction:" : "The closest of its \(recorded.count) recorded interactions:")
            }
            for candidate in nearest(ranked) {
                let recording = recorded[candidate.number - 1]
                lines.append(
                    "  #\(candidate.number) \(recording.request.method) \(recording.request.url)\(recording.used ? " (already used)" : "")")
                for difference in candidate.differences.prefix(Self.shownDifferences) {
                    lines.append("    - \(difference.description)")
                }
                if candidate.differences.count > Self.shownDifferences {
                    lines.append("    - and \(candidate.differences.count - Self.shownDifferences) more differences")
                }
                if let note = RequestDifference.multipartNote(recording.request, as: "recorded") { lines.append("    Note: " + note) }
            }
        }
        for note in notes { lines.append("Note: " + note) }
        lines.append("To fix: " + fix(closest: ranked.first?.differences))
        return lines.joined(separator: "\n")
    }

    private struct Candidate {
        /// From 1, in file order.
        var number: Int
        var differences: [RequestDifference]
        var distance: Int
    }

    /// The recordings, closest first (ties in file order); recordings that match (used up) first.
    private func closest() -> [Candidate] {
        recorded.enumerated().map { index, recording in
            let differences = RequestDifference.between(request, recording.request, rules: rules)
            return Candidate(number: index + 1, differences: differences, distance: differences.reduce(0) { $0 + $1.weight })
        }
        .sorted { ($0.distance, $0.number) < ($1.distance, $1.number) }
    }

    /// The one change most likely to help, after what differs in the closest recording.
    private func fix(closest differences: [RequestDifference]?) -> String {
        let record = reader.recording(mode: mode)
        if usedUp > 0 {
            return "if the server answers this request more than once, \(record); to replay the last answer again instead, "
                + "\(reader.allowingRepeats)."
        }
        guard let differences, !differences.isEmpty, rules.predicate == nil else {
            return "if the request is new, \(record)."
        }
        func names(_ pick: (RequestDifference.Field) -> String?) -> [String]? {
            let picked = differences.map { pick($0.field) }
            return picked.contains(nil) ? nil : picked.compactMap { $0 }
        }
        if differences.count == 1, let origin = differences.first, origin.field == .origin,
            let recorded = origin.recorded, let requested = origin.requested
        {
            let samePlace = CanonicalURL.text(recorded, origin: .anyPort) == CanonicalURL.text(requested, origin: .anyPort)
            return samePlace
                ? "if the server may listen on another port (a test server on a random port), \(reader.ignoring("port", rule: ".ignoringPort()")); "
                    + "if the request is new, \(record)."
                : "if the same requests go to another server (staging, a local one), "
                    + "\(reader.ignoring("host", rule: ".ignoringHost()", note: ", which compares path, query, method and body only")); "
                    + "if the request is new, \(record)."
        }
        if let query = names({ if case .query(let name) = $0 { name } else { nil } }) {
            return "if \(Self.list(query)) may differ, add .ignoringQueryParameters(\(Self.list(query))) to the cassette's matching; "
                + "if the request is new, \(record)."
        }
        if let paths = names({ if case .json(let path) = $0 { path.description } else { nil } }) {
            return "if \(Self.list(paths)) may differ, add .ignoringJSONPaths(\(Self.list(paths))) to the cassette's matching; "
                + "if the request changed for good, \(reader.reRecording())."
        }
        let bodyOnly = differences.allSatisfy {
            switch $0.field {
            case .json, .formField, .multipartPart, .body: true
            default: false
            }
        }
        if bodyOnly {
            return "if the request's body changed for good, \(reader.reRecording()); "
                + "if the code under test should have sent the recorded body, check what it builds."
        }
        if let headers = names({ if case .header(let name) = $0 { name } else { nil } }) {
            return
                "the cassette's matching compares \(Self.list(headers)) (.includingHeaders); leave \(headers.count == 1 ? "it" : "them") out "
                + "if \(headers.count == 1 ? "it" : "they") may differ, or \(record.replacingOccurrences(of: "record it", with: "record the request"))."
        }
        return "if the request is new, \(record); if the code under test should have sent the recorded request, check what it builds."
    }

    private static func list(_ names: [String]) -> String {
        let unique = names.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return unique.map(RequestDifference.quoted).joined(separator: ", ")
    }
}
