import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TapeServer {
    /// The admin interface: requests under ``prefix`` that drive the server instead of being
    /// answered from a cassette (they are never matched nor recorded).
    ///
    /// - `POST {prefix}load` with `{"cassette": "NAME"}`: ejects the cassette loaded (saving what
    ///   it recorded) and loads `NAME` from the server's folder (`feed`, `UI/feed.har`); answers
    ///   `{"loaded": FILE, "previous": REPORT}`. With `{"cassettes": ["NAME", "BENEATH", …]}`, the
    ///   first is loaded and the others lie beneath it, matched in order (see ``load(_:beneath:)``);
    ///   the answer adds `"beneath": [FILE, …]`. A folder server only
    ///   (``init(folder:mode:matching:tapeOptions:environment:options:)``).
    /// - `POST {prefix}eject`: ejects the cassette loaded, answers its report; requests then get
    ///   `503` until the next load.
    /// - `GET {prefix}report`: what the loaded cassette did so far, as JSON (`replayed`,
    ///   `recorded`, `unmatched`, `unusedInteractions`, …).
    ///
    /// Only clients on this machine (a loopback address) may use it, unless ``token`` is set: then
    /// every admin request must carry it in ``TapeServer/adminTokenHeader``, from wherever it
    /// comes. A refused admin request gets `403` and changes nothing.
    public struct Admin: Sendable, Equatable {
        /// Where admin requests are. Default `/__cassette/`.
        public var prefix: String
        /// The token every admin request must carry; nil (the default): loopback clients only.
        public var token: String?

        /// An admin interface under `prefix`, guarded by `token` when given.
        public init(prefix: String = "/__cassette/", token: String? = nil) {
            self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
            self.token = token
        }
    }

    /// The header field that carries ``Admin/token``.
    public static let adminTokenHeader = "X-Cassette-Admin-Token"

    /// How a folder server opens the cassettes it loads.
    struct Shelf: Sendable {
        var cassettes: CassetteStore
        var mode: RecordMode
        var matching: RequestMatching
        var options: Tape.Options
        var environment: [String: String]
    }

    /// A server for a whole UI-test run: it serves the cassettes of `folder` one at a time, each
    /// loaded by name when a scenario starts — from Swift with ``load(_:beneath:)``, from anything else
    /// with `POST /__cassette/load` (see ``Admin``) — so one server serves every test of a suite,
    /// and clients not driven from Swift (a simulator started by a script, a web front end).
    ///
    /// ```swift
    /// // Once per UI-test run:
    /// let server = try TapeServer(folder: "Cassettes/UITests", mode: .none, tapeOptions: .init(allowsRepeatedReplays: true))
    /// // In each test:
    /// try server.load("Feed/empty")                        // the previous scenario is saved
    /// app.launchEnvironment["API_BASE_URL"] = server.baseURL.absoluteString
    /// ```
    ///
    /// Until the first load, requests get `503`. Each cassette is opened as
    /// `Tape(file:mode:matching:options:environment:)` would open it.
    ///
    /// - Parameters:
    ///   - folder: The folder of cassettes (absolute, or relative to the current directory).
    ///   - mode: The record mode each cassette is opened in. Default `none`: replay only.
    ///   - matching: How requests match recordings, for every cassette.
    ///   - tapeOptions: The options of every tape (latency, repeats, redaction, …).
    ///   - environment: Where each tape reads `CASSETTE_RECORD_MODE`, `CI` and `CASSETTE_LATENCY`.
    ///   - options: How the server listens and answers (``Options``; ``Options/admin`` for the
    ///     admin interface).
    /// - Throws: `CassetteError.serverFailed(_:)` when the address cannot be listened on.
    public convenience init(
        folder: String, mode: RecordMode = .none, matching: RequestMatching = .default, tapeOptions: Tape.Options = Tape.Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment, options: Options = Options()
    ) throws {
        let shelf = Shelf(
            cassettes: CassetteStore(folder: URL(fileURLWithPath: folder)), mode: mode, matching: matching, options: tapeOptions,
            environment: environment)
        try self.init(first: nil, shelf: shelf, options: options)
    }

    /// Loads the cassette `name` from the server's folder (`feed`, `UI/feed`, `UI/feed.har`:
    /// without an extension, the `.json`, `.http` or `.har` file that exists), after ejecting the
    /// one loaded. When `name` cannot be loaded, the loaded cassette stays loaded.
    ///
    /// `beneath` names cassettes of the folder that answer what `name` has no recording for, in
    /// order: a scenario's cassette on top of one shared by every scenario (signing in, the app's
    /// configuration). A request is answered by the first of them that has a recording for it
    /// (once it is used up, by none: a miss, or a repeat with `allowsRepeatedReplays`). Those
    /// beneath are only replayed: what is recorded goes to `name`, and their unused
    /// interactions are not reported.
    ///
    /// ```swift
    /// try server.load("Checkout/empty-cart", beneath: ["Common/signed-in"])
    /// ```
    ///
    /// - Parameters:
    ///   - name: The cassette to load, and to record into when the mode records.
    ///   - beneath: Cassettes that answer what `name` does not, in order. Default: none.
    /// - Returns: The report of the cassette that was loaded before, or nil.
    /// - Throws: `CassetteError.invalidCassetteName(_:)` for a name that leaves the folder;
    ///   `CassetteError.serverFailed(_:)` on a server started with one tape; what opening the
    ///   tapes or saving the previous one throws.
    @discardableResult
    public func load(_ name: String, beneath: [String] = []) throws -> Tape.Report? {
        guard let shelf else {
            throw CassetteError.serverFailed(
                "this server serves one tape; start it on a folder of cassettes (TapeServer(folder:), cassette serve --folder) to load others"
            )
        }
        let file = try shelf.cassettes.file(named: name).file
        var tapeOptions = shelf.options
        tapeOptions.underlyingCassettes = try beneath.map { try shelf.cassettes.file(named: $0).file }
        let tape = try Tape(file: file, mode: shelf.mode, matching: shelf.matching, options: tapeOptions, environment: shelf.environment)
        let next: ServerStage
        do {
            next = try ServerStage(tape: tape, upstream: options.upstream, ownOrigin: ownOrigin, own: own)
        } catch {
            // Never used: a new name is not left behind as an empty cassette.
            tape.discard()
            throw error
        }
        let previous = stage.withLock { stage -> ServerStage? in
            defer { stage = next }
            return stage
        }
        return try previous.map(Self.retire)
    }

    /// Ejects the cassette loaded (saving what it recorded); requests get `503` until the next
    /// ``load(_:beneath:)``. On a server started with one tape, ejects that tape and stops the server.
    ///
    /// - Returns: The ejected cassette's report, or nil when none was loaded.
    @discardableResult
    public func eject() throws -> Tape.Report? {
        guard shelf != nil else { return try tape?.eject() }
        return try stage.withLock { stage -> ServerStage? in
            defer { stage = nil }
            return stage
        }.map(Self.retire)
    }

    /// What the loaded cassette did so far (`tape.reportSoFar`), or nil when none is loaded.
    public var report: Tape.Report? { tape?.reportSoFar }

    /// Ejects a stage's tape.
    private static func retire(_ stage: ServerStage) throws -> Tape.Report {
        try stage.tape.eject()
    }

    // MARK: On the wire

    /// Answers an admin request (`command` is the target after the prefix); false when the
    /// connection must close.
    func answerAdmin(_ wire: WireRequest, command: String, on connection: ServerConnection) -> Bool {
        let access = AdminAccess(token: options.admin?.token)
        let presented = wire.headers.first { asciiCaseInsensitiveEquals($0.name, Self.adminTokenHeader) }?.value
        guard access.admits(peer: connection.peerAddress, presented: presented) else {
            return writeAdmin(
                403,
                [
                    "error": access.token == nil
                        ? "the admin interface answers clients on this machine only (start the server with an admin token to allow others)"
                        : "this admin request does not carry the server's admin token in \(Self.adminTokenHeader)"
                ],
                to: connection, keepAlive: wire.keepsAlive)
        }
        let path = command.split(separator: "?", maxSplits: 1).first.map(String.init) ?? command
        do {
            switch (wire.method, path) {
            case ("POST", "load"):
                let body = try? JSONParser.parse(wire.body)
                let one = body?.memberValue("cassette")
                let several = body?.memberValue("cassettes")
                let names = one.flatMap { $0.value.stringValue }.map { [$0] } ?? several.flatMap(Self.strings) ?? []
                guard let name = names.first, (one == nil) != (several == nil) else {
                    return writeAdmin(
                        400, ["error": #"the body must be JSON: {"cassette": "NAME"} or {"cassettes": ["NAME", "BENEATH", …]}"#],
                        to: connection, keepAlive: wire.keepsAlive)
                }
                let previous = try load(name, beneath: Array(names.dropFirst()))
                var answer: [(String, JSONValue)] = [("loaded", JSONValue(tape?.file.path ?? name))]
                if names.count > 1 { answer.append(("beneath", JSONValue(tape?.options.underlyingCassettes.map(\.path) ?? []))) }
                if let previous { answer.append(("previous", Self.json(previous))) }
                return writeAdmin(
                    200, .object(answer.map { JSONMember(key: $0.0, value: JSONNode($0.1)) }), to: connection, keepAlive: wire.keepsAlive)
            case ("POST", "eject"):
                let report = try eject()
                return writeAdmin(200, report.map(Self.json) ?? ["ejected": .null], to: connection, keepAlive: wire.keepsAlive)
            case ("GET", "report"):
                guard let report else {
                    return writeAdmin(409, ["error": "no cassette is loaded"], to: connection, keepAlive: wire.keepsAlive)
                }
                return writeAdmin(200, Self.json(report), to: connection, keepAlive: wire.keepsAlive)
            case (_, "load"), (_, "eject"), (_, "report"):
                return writeAdmin(
                    405, ["error": "\(path) takes \(path == "report" ? "GET" : "POST"), not \(wire.method)"], to: connection,
                    keepAlive: wire.keepsAlive)
            default:
                return writeAdmin(
                    404, ["error": "no admin command \"\(path)\": POST load, POST eject, GET report"], to: connection,
                    keepAlive: wire.keepsAlive)
            }
        } catch let error as CassetteError {
            let status = if case .invalidCassetteName = error { 400 } else { 409 }
            return writeAdmin(status, ["error": JSONValue(error.description)], to: connection, keepAlive: wire.keepsAlive)
        } catch {
            return writeAdmin(500, ["error": JSONValue("\(error)")], to: connection, keepAlive: wire.keepsAlive)
        }
    }

    /// A report as the admin interface shows it.
    static func json(_ report: Tape.Report) -> JSONValue {
        [
            "cassette": JSONValue(report.file.path), "mode": JSONValue(report.mode.rawValue), "replayed": JSONValue(report.replayed),
            "recorded": JSONValue(report.recorded),
            "unmatched": JSONValue(
                report.unmatched.map {
                    ["method": JSONValue($0.request.method), "url": JSONValue($0.request.url), "report": JSONValue($0.description)]
                }),
            "unusedInteractions": JSONValue(report.unusedInteractions), "saved": JSONValue(report.saved),
            "warnings": JSONValue(report.warnings),
        ]
    }

    /// The strings of an array; nil for anything else.
    private static func strings(_ node: JSONNode) -> [String]? {
        guard case .array(let elements) = node.value else { return nil }
        let strings = elements.compactMap(\.value.stringValue)
        return strings.count == elements.count ? strings : nil
    }

    private func writeAdmin(_ status: Int, _ answer: JSONValue, to connection: ServerConnection, keepAlive: Bool) -> Bool {
        let body = Data((answer.compactText + "\n").utf8)
        var head = "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
        return connection.write(Array(head.utf8) + Array(body)) && keepAlive
    }
}
