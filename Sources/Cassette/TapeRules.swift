import Foundation

/// The rules a project's tests apply to its cassettes — how requests match, what is redacted, how
/// replays are timed, whether a recording may answer twice — written once, in a file that tapes
/// and the `cassette` commands read alike, so that a cassette replays from the command line
/// (`play`, `serve`, `record`) as it replays in the tests.
///
/// The file is JSON; every member is optional. The commands read `cassette-rules.json` in the
/// cassette's folder, or the file given to `--rules`:
///
/// ```json
/// {
///   "matching": {
///     "ignoringQueryParameters": ["cacheBuster"],
///     "includingHeaders": ["Accept"],
///     "ignoringJSONPaths": ["requestId"],
///     "ignoring": "port",
///     "comparingMultipartPartOrder": false
///   },
///   "redaction": {
///     "defaults": true,
///     "headers": ["X-Api-Key"], "queryParameters": ["token"], "jsonKeys": ["password"],
///     "jsonPaths": ["user.ssn"], "formFields": ["pin"], "bodyPatterns": ["sk_live_[A-Za-z0-9]+"]
///   },
///   "latency": "recorded",
///   "allowsRepeatedReplays": true,
///   "ignore": { "hosts": ["telemetry.example.com"], "localhost": true, "ports": [9229] }
/// }
/// ```
///
/// A tape reads the same file:
///
/// ```swift
/// let rules = try TapeRules(contentsOf: URL(fileURLWithPath: "Cassettes/cassette-rules.json"))
/// let tape = try Tape(named: "Feed", matching: rules.matching, options: rules.applying(to: Tape.Options()))
/// ```
///
/// `redaction` lists what is redacted on top of the defaults (`"defaults": false` starts from
/// nothing); `latency` takes the text forms of `CASSETTE_LATENCY`; `ignore` names the requests that
/// always go live (``IgnoredRequests``: hosts, this machine, ports).
public struct TapeRules: Sendable {
    /// The name the commands look for in a cassette's folder.
    package static let fileName = "cassette-rules.json"

    /// How requests match recordings.
    public var matching: RequestMatching
    /// What is redacted; nil: the default redaction.
    public var redaction: Redaction?
    /// How replays are timed; nil: as `CASSETTE_LATENCY` says.
    public var latency: Latency?
    /// Whether a recording that already answered may answer again; nil: no.
    public var allowsRepeatedReplays: Bool?
    /// Requests that always go live; nil: none.
    public var ignoredRequests: IgnoredRequests?

    /// Rules given in code.
    public init(
        matching: RequestMatching = .default, redaction: Redaction? = nil, latency: Latency? = nil, allowsRepeatedReplays: Bool? = nil,
        ignoredRequests: IgnoredRequests? = nil
    ) {
        self.matching = matching
        self.redaction = redaction
        self.latency = latency
        self.allowsRepeatedReplays = allowsRepeatedReplays
        self.ignoredRequests = ignoredRequests
    }

    /// Reads a rules file.
    ///
    /// - Throws: `CassetteFormatError` naming the file, the place (line and column, and the
    ///   member's JSON path) and what was expected.
    public init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CassetteFormatError(file: file.path, problems: [.init(path: nil, message: "cannot read the rules file: \(error)")])
        }
        self = try RulesFileReader.rules(in: data, file: file.path)
    }

    /// The rules file in `folder` (`fileName`), or nil when there is none.
    ///
    /// - Throws: what ``init(contentsOf:)`` throws for a file that is there but wrong.
    public static func inFolder(_ folder: URL) throws -> TapeRules? {
        let file = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try TapeRules(contentsOf: file)
    }

    /// `options` with what these rules set (redaction, latency, repeats, ignored requests); the rest as it was.
    public func applying(to options: Tape.Options) -> Tape.Options {
        var options = options
        if let ignoredRequests { options.ignoredRequests = ignoredRequests }
        if let redaction { options.redaction = redaction }
        if let latency { options.latency = latency }
        if let allowsRepeatedReplays { options.allowsRepeatedReplays = allowsRepeatedReplays }
        return options
    }
}

/// Reads ``TapeRules`` from a file's bytes with the helpers every JSON reader of Cassette shares
/// (``JSONTreeReading``), reporting every mistake with its place.
private struct RulesFileReader: JSONTreeReading {
    var problems: [(path: JSONPath, offset: Int, message: String)] = []
    var misspelt: Set<JSONMisspeltKey> = []

    /// The rules file names what it found by its kind ("found a string"): its values are short.
    static func describe(_ value: JSONValue) -> String { value.kindDescription }

    static func rules(in data: Data, file: String) throws(CassetteFormatError) -> TapeRules {
        let root = try JSONCassetteCodec.parse(data, file: file)
        var reader = RulesFileReader()
        let rules = reader.rules(root)
        guard reader.problems.isEmpty else { throw JSONCassetteCodec.error(reader.problems, in: data, file: file) }
        return rules
    }

    private mutating func rules(_ root: JSONNode) -> TapeRules {
        var rules = TapeRules()
        guard
            let members = members(
                of: root, at: .root, expected: "an object",
                allowed: ["matching", "redaction", "latency", "allowsRepeatedReplays", "ignore"], unknown: "member")
        else { return rules }
        if let node = members["matching"] { rules.matching = matching(node) }
        if let node = members["redaction"] { rules.redaction = redaction(node) }
        if let node = members["latency"], let text = readString(node, at: JSONPath.root.appending("latency"), expected: "a string") {
            switch Latency.read(text) {
            case .success(let latency): rules.latency = latency
            case .failure(let error): report(error.message, at: JSONPath.root.appending("latency"), offset: node.offset)
            }
        }
        if let node = members["allowsRepeatedReplays"] {
            rules.allowsRepeatedReplays = readBool(node, at: JSONPath.root.appending("allowsRepeatedReplays"))
        }
        if let node = members["ignore"] { rules.ignoredRequests = ignored(node) }
        return rules
    }

    /// `{ "hosts": [...], "localhost": true, "ports": [...] }`.
    private mutating func ignored(_ node: JSONNode) -> IgnoredRequests {
        let place = JSONPath.root.appending("ignore")
        var ignored = IgnoredRequests()
        guard
            let members = members(
                of: node, at: place, expected: "an object like { \"hosts\": [\"telemetry.example.com\"], \"localhost\": true }",
                allowed: ["hosts", "localhost", "ports"], unknown: "rule")
        else { return ignored }
        if let hosts = members["hosts"].flatMap({ strings($0, at: place.appending("hosts")) }) { ignored.hosts = hosts }
        if let localhost = members["localhost"].flatMap({ readBool($0, at: place.appending("localhost")) }) {
            ignored.localhost = localhost
        }
        if let portsNode = members["ports"] {
            let portsPlace = place.appending("ports")
            guard case .array(let elements) = portsNode.value else {
                report(
                    "expected an array of port numbers like [8080], found \(Self.describe(portsNode.value))", at: portsPlace,
                    offset: portsNode.offset)
                return ignored
            }
            for (index, element) in elements.enumerated() {
                guard let port = readInteger(element, at: portsPlace.appending(index), expected: "a port number"),
                    (1...65_535).contains(port)
                else {
                    if case .number(let text) = element.value, let number = Int(text) {
                        report("a port is from 1 to 65535, found \(number)", at: portsPlace.appending(index), offset: element.offset)
                    }
                    continue
                }
                ignored.ports.append(port)
            }
        }
        return ignored
    }

    private mutating func matching(_ node: JSONNode) -> RequestMatching {
        let place = JSONPath.root.appending("matching")
        var matching = RequestMatching.default
        guard
            let members = members(
                of: node, at: place, expected: "an object",
                allowed: ["ignoringQueryParameters", "includingHeaders", "ignoringJSONPaths", "ignoring", "comparingMultipartPartOrder"],
                unknown: "member")
        else { return matching }
        if let names = members["ignoringQueryParameters"].flatMap({ strings($0, at: place.appending("ignoringQueryParameters")) }) {
            matching.ignoredQueryParameters = Set(names)
        }
        if let names = members["includingHeaders"].flatMap({ strings($0, at: place.appending("includingHeaders")) }) {
            matching.headers = names
        }
        if let paths = members["ignoringJSONPaths"].flatMap({ strings($0, at: place.appending("ignoringJSONPaths")) }) {
            matching.ignoredJSONPaths = paths
        }
        if let ignoring = members["ignoring"], let text = readString(ignoring, at: place.appending("ignoring"), expected: "a string") {
            switch text {
            case "port": matching = matching.ignoringPort()
            case "host": matching = matching.ignoringHost()
            case let other:
                report("expected \"port\" or \"host\", found \"\(other)\"", at: place.appending("ignoring"), offset: ignoring.offset)
            }
        }
        if let order = members["comparingMultipartPartOrder"].flatMap({ readBool($0, at: place.appending("comparingMultipartPartOrder")) })
        {
            matching.comparesMultipartPartOrder = order
        }
        return matching
    }

    private mutating func redaction(_ node: JSONNode) -> Redaction {
        let place = JSONPath.root.appending("redaction")
        let lists = ["headers", "queryParameters", "jsonKeys", "jsonPaths", "formFields", "bodyPatterns"]
        guard let members = members(of: node, at: place, expected: "an object", allowed: ["defaults"] + lists, unknown: "member") else {
            return .default
        }
        let defaults = members["defaults"].flatMap { readBool($0, at: place.appending("defaults")) } ?? true
        var redaction = defaults ? Redaction.default : .none
        for name in lists {
            guard let values = members[name].flatMap({ strings($0, at: place.appending(name)) }) else { continue }
            switch name {
            case "headers": redaction.headers += values
            case "queryParameters": redaction.queryParameters += values
            case "jsonKeys": redaction.jsonKeys += values
            case "jsonPaths": redaction.jsonPaths += values
            case "formFields": redaction.formFields += values
            default:
                redaction.bodyPatterns += values
                checkPatterns(members[name], at: place.appending(name))
            }
        }
        return redaction
    }

    /// Reports each body pattern that is not a regular expression, at its line and column: the
    /// file is refused when it is read (by `cassette lint` as by a tape and `cassette serve`),
    /// never at the first request.
    private mutating func checkPatterns(_ node: JSONNode?, at place: JSONPath) {
        guard case .array(let elements)? = node?.value else { return }
        for (index, element) in elements.enumerated() {
            guard let pattern = element.value.stringValue else { continue }
            do throws(BodyPattern.Problem) {
                _ = try BodyPattern(pattern)
            } catch {
                report("\"\(pattern)\" is not a regular expression (\(error.reason))", at: place.appending(index), offset: element.offset)
            }
        }
    }

    private mutating func strings(_ node: JSONNode, at place: JSONPath) -> [String]? {
        readStrings(node, at: place, expected: "an array of strings")
    }
}
