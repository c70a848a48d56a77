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
///   "allowsRepeatedReplays": true
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
/// nothing); `latency` takes the text forms of `CASSETTE_LATENCY`.
public struct TapeRules: Sendable {
    /// The name the commands look for in a cassette's folder.
    public static let fileName = "cassette-rules.json"

    /// How requests match recordings.
    public var matching: RequestMatching
    /// What is redacted; nil: the default redaction.
    public var redaction: Redaction?
    /// How replays are timed; nil: as `CASSETTE_LATENCY` says.
    public var latency: Latency?
    /// Whether a recording that already answered may answer again; nil: no.
    public var allowsRepeatedReplays: Bool?

    /// Rules given in code.
    public init(
        matching: RequestMatching = .default, redaction: Redaction? = nil, latency: Latency? = nil, allowsRepeatedReplays: Bool? = nil
    ) {
        self.matching = matching
        self.redaction = redaction
        self.latency = latency
        self.allowsRepeatedReplays = allowsRepeatedReplays
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
        self = try RulesFileReader(data: data, file: file.path).rules()
    }

    /// The rules file in `folder` (``fileName``), or nil when there is none.
    ///
    /// - Throws: what ``init(contentsOf:)`` throws for a file that is there but wrong.
    public static func inFolder(_ folder: URL) throws -> TapeRules? {
        let file = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try TapeRules(contentsOf: file)
    }

    /// `options` with what these rules set (redaction, latency, repeats); the rest as it was.
    public func applying(to options: Tape.Options) -> Tape.Options {
        var options = options
        if let redaction { options.redaction = redaction }
        if let latency { options.latency = latency }
        if let allowsRepeatedReplays { options.allowsRepeatedReplays = allowsRepeatedReplays }
        return options
    }
}

/// Reads ``TapeRules`` from a file's bytes, with the place of every mistake.
private struct RulesFileReader {
    let data: Data
    let file: String

    func rules() throws -> TapeRules {
        let root: JSONNode
        do {
            root = try JSONParser.parse(data)
        } catch {
            throw problem(at: error.offset, nil, error.message)
        }
        let members = try object(root, at: .root, allowed: ["matching", "redaction", "latency", "allowsRepeatedReplays"])
        var rules = TapeRules()
        if let node = members["matching"] { rules.matching = try matching(node) }
        if let node = members["redaction"] { rules.redaction = try redaction(node) }
        if let node = members["latency"] {
            let text = try string(node, at: JSONPath.root.appending("latency"))
            switch Latency.read(text) {
            case .success(let latency): rules.latency = latency
            case .failure(let error): throw problem(at: node.offset, JSONPath.root.appending("latency"), error.message)
            }
        }
        if let node = members["allowsRepeatedReplays"] {
            rules.allowsRepeatedReplays = try bool(node, at: JSONPath.root.appending("allowsRepeatedReplays"))
        }
        return rules
    }

    private func matching(_ node: JSONNode) throws -> RequestMatching {
        let place = JSONPath.root.appending("matching")
        let members = try object(
            node, at: place,
            allowed: ["ignoringQueryParameters", "includingHeaders", "ignoringJSONPaths", "ignoring", "comparingMultipartPartOrder"])
        var matching = RequestMatching.default
        if let names = members["ignoringQueryParameters"] {
            matching.ignoredQueryParameters = Set(try strings(names, at: place.appending("ignoringQueryParameters")))
        }
        if let names = members["includingHeaders"] { matching.headers = try strings(names, at: place.appending("includingHeaders")) }
        if let paths = members["ignoringJSONPaths"] {
            matching.ignoredJSONPaths = try strings(paths, at: place.appending("ignoringJSONPaths"))
        }
        if let ignoring = members["ignoring"] {
            switch try string(ignoring, at: place.appending("ignoring")) {
            case "port": matching = matching.ignoringPort()
            case "host": matching = matching.ignoringHost()
            case let other:
                throw problem(at: ignoring.offset, place.appending("ignoring"), "expected \"port\" or \"host\", found \"\(other)\"")
            }
        }
        if let order = members["comparingMultipartPartOrder"] {
            matching.comparesMultipartPartOrder = try bool(order, at: place.appending("comparingMultipartPartOrder"))
        }
        return matching
    }

    private func redaction(_ node: JSONNode) throws -> Redaction {
        let place = JSONPath.root.appending("redaction")
        let lists = ["headers", "queryParameters", "jsonKeys", "jsonPaths", "formFields", "bodyPatterns"]
        let members = try object(node, at: place, allowed: ["defaults"] + lists)
        var redaction = try members["defaults"].map { try bool($0, at: place.appending("defaults")) } ?? true ? Redaction.default : .none
        for name in lists {
            guard let list = members[name] else { continue }
            let values = try strings(list, at: place.appending(name))
            switch name {
            case "headers": redaction.headers += values
            case "queryParameters": redaction.queryParameters += values
            case "jsonKeys": redaction.jsonKeys += values
            case "jsonPaths": redaction.jsonPaths += values
            case "formFields": redaction.formFields += values
            default: redaction.bodyPatterns += values
            }
        }
        return redaction
    }

    // MARK: Values

    private func object(_ node: JSONNode, at place: JSONPath, allowed: [String]) throws -> [String: JSONNode] {
        guard case .object(let members) = node.value else {
            throw problem(at: node.offset, place, "expected an object, found \(node.value.kindDescription)")
        }
        var found: [String: JSONNode] = [:]
        for member in members {
            guard allowed.contains(member.key) else {
                throw problem(
                    at: member.keyOffset, place.appending(member.key),
                    "unknown member \"\(member.key)\"; expected one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            guard found[member.key] == nil else {
                throw problem(at: member.keyOffset, place.appending(member.key), "\"\(member.key)\" is given twice")
            }
            found[member.key] = member.value
        }
        return found
    }

    private func strings(_ node: JSONNode, at place: JSONPath) throws -> [String] {
        guard case .array(let elements) = node.value else {
            throw problem(at: node.offset, place, "expected an array of strings, found \(node.value.kindDescription)")
        }
        return try elements.enumerated().map { index, element in try string(element, at: place.appending(index)) }
    }

    private func string(_ node: JSONNode, at place: JSONPath) throws -> String {
        guard let text = node.value.stringValue else {
            throw problem(at: node.offset, place, "expected a string, found \(node.value.kindDescription)")
        }
        return text
    }

    private func bool(_ node: JSONNode, at place: JSONPath) throws -> Bool {
        guard case .bool(let value) = node.value else {
            throw problem(at: node.offset, place, "expected true or false, found \(node.value.kindDescription)")
        }
        return value
    }

    private func problem(at offset: Int, _ place: JSONPath?, _ message: String) -> CassetteFormatError {
        var positions = SourcePositions(data)
        let (line, column) = positions.position(of: offset)
        return CassetteFormatError(file: file, problems: [.init(path: place, line: line, column: column, message: message)])
    }
}
