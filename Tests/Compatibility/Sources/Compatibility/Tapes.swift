import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Opening, using and ejecting a tape, and what it reports, as the README and the Guide write it.

struct UsersClient {
    var session: URLSession

    func user(id: Int) async throws -> Data {
        let url = URL(string: "https://api.example.com/users/\(id)") ?? URL(fileURLWithPath: "/")
        return try await session.data(from: url).0
    }
}

func openingTapes(folder: URL) async throws {
    let tape = try Tape(named: "Users/fetch")
    _ = try await UsersClient(session: tape.session).user(id: 42)
    let report = try tape.eject()
    _ = (report.file, report.mode, report.requests, report.replayed, report.recorded, report.saved, report.isLive)
    _ = (report.unmatched, report.unusedInteractions, report.warnings, report.declined, report.movedTimes, report.missesFile)
    if let stale = report.stale { _ = (stale.message, stale.fails) }
    for match in report.redactedMatches { _ = (match.interaction, match.request, match.redactedValues, match.description) }

    let fromFile = try Tape(
        file: folder.appendingPathComponent("users.json"), mode: .none, matching: .default, options: Tape.Options(),
        environment: ProcessInfo.processInfo.environment)
    let configuration = URLSessionConfiguration.default
    configuration.httpAdditionalHeaders = ["X-Client": "tests"]
    fromFile.configure(configuration)
    _ = URLSession(configuration: configuration)
    _ = fromFile.makeSession(configuration: .default, delegate: nil, delegateQueue: nil)
    _ = (
        fromFile.file, fromFile.mode, fromFile.matching, fromFile.options, fromFile.latency, fromFile.stubs, fromFile.now,
        fromFile.recordedAt
    )
    fromFile.metadata["apiVersion"] = "2024-06-01"
    _ = fromFile.reportSoFar.recorded
    try await fromFile.interceptSharedSession()
    try fromFile.eject(testFailed: false)

    let inFolder = try Tape(named: "feed", folder: folder.path, bundle: nil, mode: .once)
    _ = try inFolder.eject(testFailed: true)

    Tape.prepareSharedSession()
    let interception = try Tape.interceptEverySession(routingTo: nil)
    interception.undo()
    Tape.isLive = ProcessInfo.processInfo.environment["NIGHTLY"] != nil
    _ = Tape.current?.session
    _ = Tape.unmatchedRequestErrorCode == .resourceUnavailable
}

func withCassetteBothWays() async throws {
    let name = try await withCassette("Users/fetch", folder: "Cassettes", mode: .none, sharedSession: false) { tape in
        try await UsersClient(session: tape.session).user(id: 42)
    }
    _ = name
    let file = try withCassette("Users/fetchSynchronously", mode: .once, matching: .default, options: Tape.Options()) { tape in
        tape.file
    }
    _ = file
}

func everyOption() {
    var options = Tape.Options(
        allowsRepeatedReplays: true, latency: .instant, redaction: .default, beforeRecord: { $0 }, beforeReplay: { $0 },
        unusedInteractions: .warn, staleness: .warn(after: 90 * 86_400), savesConnectionFailures: false, secretCheck: .failSave,
        ignoredChanges: .default, urlCache: .kept, time: .shifted, expectsRequests: false, ignoredRequests: .none,
        savesWhenTestFails: false, writesMisses: true, schemaReference: nil)
    options.allowsRepeatedReplays = false
    options.latency = .recorded
    options.redaction = .none
    options.beforeRecord = nil
    options.beforeReplay = nil
    options.unusedInteractions = .fail
    options.staleness = nil
    options.savesConnectionFailures = true
    options.secretCheck = .off
    options.ignoredChanges = .none
    options.urlCache = .removed
    options.time = .recorded
    options.expectsRequests = true
    options.ignoredRequests = IgnoredRequests(hosts: ["telemetry.example.com"], localhost: true, ports: [5432], where: { _ in false })
    options.savesWhenTestFails = true
    options.writesMisses = false
    options.schemaReference = "../docs/cassette.schema.json"
    _ = Tape.Options(writesMisses: true)
    _ = Tape.Options(secretCheck: .warn, urlCache: .removed)
    _ = ReplayTime.shifted.addingJSONPaths("$.issuedAt")
}

func modesAndPolicies() {
    for mode in RecordMode.allCases { _ = (mode.rawValue, mode.description) }
    _ = [RecordMode.once, .newEpisodes, .all, .none]
    _ = [UnusedInteractions.ignore, .warn, .fail] + UnusedInteractions.allCases
    _ = [SecretCheck.warn, .failSave, .off]
    let staleness = Staleness(maximumAge: 30 * 86_400, action: .reRecord, onCI: .fail)
    _ = (staleness.maximumAge, staleness.action, staleness.onCI, Staleness.Action.warn.rawValue)
    _ = [Staleness.fail(after: 1), .warn(after: 1), .reRecord(after: 1, onCI: .warn)]
    let changes = IgnoredChanges(
        headers: ["Date"], headerNameEndings: ["-Request-Id"], jsonPaths: ["$.now"], timingFraction: 0.5, timingSeconds: 0.05)
    _ = (changes.headers, changes.headerNameEndings, changes.jsonPaths, changes.timingFraction, changes.timingSeconds)
    _ = IgnoredChanges.default.addingHeaders("X-Trace").addingJSONPaths("$.id")
    let ignored = IgnoredRequests.none
    _ = (ignored.hosts, ignored.localhost, ignored.ports, ignored.predicate)
}

func handlingErrors(_ error: any Error) -> String {
    guard let error = error as? CassetteError else { return "\(error)" }
    switch error {
    case .alreadyEjected(let file), .cassetteNotFound(let file, _), .readOnlyCassette(let file, _), .saveFailed(let file, _),
        .suspectedSecrets(let file, _), .unreadableCassette(let file, _):
        return file
    case .backgroundSessionNotRoutable(let identifier):
        return identifier
    case .cassetteNameNotDerivable(let test, let argument, let reason):
        return test + argument + reason
    case .everySessionNotInterceptable, .sharedSessionNotInterceptable:
        return error.description
    case .invalidCassetteName(let name):
        return name
    case .invalidEnvironmentValue(let name, let value, let accepted):
        return name + value + accepted
    case .invalidLatency(let text, let source), .invalidRecordMode(let text, let source):
        return text + source
    case .invalidRedactionPattern(let pattern, let reason):
        return pattern + reason
    case .serverFailed(let why), .unsupportedPlatform(let why):
        return why
    case .verificationFailed(let findings):
        return findings.map(describe).joined(separator: "\n") + (error.errorDescription ?? "")
    }
}

func describe(_ finding: VerificationFinding) -> String {
    switch finding {
    case .unmatched(let miss):
        let candidates = miss.candidates.map { "#\($0.number) \($0.request.url) \($0.alreadyUsed) \($0.differences.map(\.description))" }
        return [
            miss.description, "\(miss.request.url)", "\(String(describing: miss.cassette))", "\(String(describing: miss.mode))",
            "\(miss.usedUp)",
        ]
        .joined() + candidates.joined()
    case .unusedInteractions(let cassette, let interactions):
        return cassette.path + interactions.joined()
    case .stale(let cassette, let message), .interceptionBypassed(let cassette, let message):
        return cassette.path + message
    case .nothingRecorded(let cassette, let saved):
        return cassette.path + "\(saved)"
    case .emptyCassetteReplayed(let cassette):
        return cassette.path + finding.description
    }
}

func differences(_ difference: RequestDifference) -> String {
    let field: String
    switch difference.field {
    case .method: field = "method"
    case .origin: field = "origin"
    case .path: field = "path"
    case .query(let name): field = name
    case .header(let name): field = name
    case .body: field = "body"
    case .json(let path): field = path.description
    case .formField(let name): field = name
    case .multipartPart(let name): field = name
    }
    return field + (difference.requested ?? "") + (difference.recorded ?? "") + difference.description
}

/// Added after 1.0.0: the place of a difference inside a Connect or gRPC-Web request message.
func messagePlace(_ difference: RequestDifference) -> String? {
    guard let place: RequestDifference.MessageField = difference.messageField else { return nil }
    let steps: [RequestDifference.MessageField.Step] = place.path
    let numbers = steps.map { step in step.occurrence.map { "\(step.number)[\($0)]" } ?? "\(step.number)" }
    let message = place.message.map(String.init) ?? "-"
    return "\(message) \(numbers.joined(separator: ".")) \(place.description) \(steps.first?.description ?? "")"
}
