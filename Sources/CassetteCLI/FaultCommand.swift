import Cassette
import Foundation

/// `cassette fault FILE (--interaction N | --match 'METHOD URL') FAULT…`: turns one interaction
/// into a fault in place, keeping every other byte of the file.
enum FaultCommand {
    static let usage = """
        USAGE: cassette fault FILE (--interaction N | --match 'METHOD URL') FAULT... [--as-copy NAME] [--dry-run]

        Turns one interaction of a cassette into a fault — a 503, a timeout, a connection lost
        part-way, a stream cut after a few events, a slow answer — in place and atomically. In a
        JSON cassette only that interaction's bytes change (written as the encoder writes one);
        .http and .har cassettes are written whole, in their canonical form. Content-Length and
        timing follow the change, so the file replays as the fault it names and lint is content.

        CHOOSING THE INTERACTION (one of):
          --interaction N        The Nth interaction, numbered from 1 as 'cassette show', 'cassette report',
                                 'cassette prune' and a miss's report number them; '#N' too.
          --match 'METHOD URL'   The one interaction with this method and URL: a whole URL, or a path
                                 ('/v1/feed', with its query when the recording has one to match).

        FAULTS (one or more):
          --status CODE          Answer with this status (a failure in place of the answer is removed).
          --body TEXT|@FILE      Answer with this body (the text, or the bytes of FILE); a stream
                                 becomes this body. A recorded Content-Length becomes its size.
          --header 'NAME: VALUE' Set this response header, replacing one of the same name; repeatable.
          --error CODE           Fail with this URLError code instead of answering: a name the file
                                 uses (timedOut, notConnectedToInternet, …) or a number (-1001). With a
                                 cut below, the error that cuts (default networkConnectionLost).
          --cut-after-bytes N    Keep the response; the connection is lost after N bytes of its body.
          --cut-after-events N   Keep the first N events (or chunks) of a streamed response; the
                                 connection is lost after them.
          --latency FIRSTBYTE,DURATION
                                 Replay after these seconds (head, last byte), whatever latency the test
                                 chooses. With a request timeout shorter than them, a timeout.
          --rpc-status CODE      Fail a Connect or gRPC-Web call with this status, as its protocol sends
                                 one: a name (unavailable, deadline_exceeded, …; gRPC's UNAVAILABLE too)
                                 or a number (14). gRPC-Web: a trailers envelope; a Connect stream: its
                                 end-of-stream error; unary Connect: the code's HTTP status and JSON error.
          --rpc-message TEXT     The status's message, with --rpc-status.

        OPTIONS:
          --as-copy NAME         Leave FILE as it is and write the result as a new cassette NAME, named
                                 as a test names it ('Users/timeout' is Tape(named: "Users/timeout")):
                                 in the cassette folder that holds FILE (CASSETTE_FOLDER, else
                                 Cassettes/ at the package root), else beside FILE; with FILE's
                                 extension when NAME has none. A scenario cassette for one test. An
                                 existing file is not replaced; a name with '..', a hidden step or
                                 none is refused.
          --dry-run              Print what would change as a line diff: removed ('- '), added ('+ '),
                                 a line of context ('  '), '…' between changes; write nothing.

        OUTPUT: 'FILE: interaction #N (METHOD URL): WHAT'.

        EXIT STATUS: 0 done, 1 the cassette cannot be read or written or the interaction cannot take
        the fault (why on standard error; nothing is written), 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput, environment: CommandEnvironment) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "fault", usage: usage,
            options: [
                "--interaction": "interaction", "--match": "match", "--status": "status", "--body": "body", "--header": "header",
                "--error": "error", "--cut-after-bytes": "cut-after-bytes", "--cut-after-events": "cut-after-events",
                "--latency": "latency", "--as-copy": "as-copy", "--rpc-status": "rpc-status", "--rpc-message": "rpc-message",
            ],
            flags: ["--dry-run": "dry-run"], output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        let edit: FaultEdit
        let choice: Choice
        switch read(list) {
        case .success(let read): (edit, choice) = read
        case .failure(let problem): return output.usageError(problem.message, command: "fault")
        }
        let file = list.operands[0]
        var copy: String?
        if let name = list.values["as-copy"]?.last {
            switch copyFile(named: name, of: file, environment: environment) {
            case .success(let path): copy = path
            case .failure(let error): return output.usageError("--as-copy: \(error)", command: "fault")
            }
        }
        let destination = copy ?? file
        if copy != nil, URL(fileURLWithPath: destination).standardizedFileURL == URL(fileURLWithPath: file).standardizedFileURL {
            output.errorLine("\(ShownPath.of(destination)): error: is the cassette being changed; give --as-copy another name")
            return ExitCode.failure
        }
        if destination != file, FileManager.default.fileExists(atPath: destination) {
            output.errorLine("\(ShownPath.of(destination)): error: already exists; choose another name for the copy, or delete it first")
            return ExitCode.failure
        }
        let place = ShownPath.of(file) + (destination == file ? "" : " → " + ShownPath.of(destination))
        // In place, the file is read, changed and written under its folder's lock, as every
        // writer does: a change another command made meanwhile is kept.
        var prepared: Result<Prepared, Stop>?
        do {
            if copy == nil, !list.flags.contains("dry-run") {
                try CassetteFile.update(URL(fileURLWithPath: file)) { (current: Data?) throws(CassetteError) -> Data? in
                    let result = prepare(current, of: file, choice: choice, edit: edit, into: destination)
                    prepared = result
                    return try? result.get().replacement.data
                }
            } else {
                let result = prepare(
                    FileManager.default.contents(atPath: file), of: file, choice: choice, edit: edit, into: destination)
                prepared = result
                if let copy, !list.flags.contains("dry-run"), case .success(let ready) = result {
                    try CassetteFile.create(URL(fileURLWithPath: copy), with: ready.replacement.data)
                }
            }
        } catch {
            output.errorLine("\(ShownPath.of(destination)): error: cannot write the cassette: \(error); nothing was changed")
            return ExitCode.failure
        }
        switch prepared {
        case .failure(let stop)?:
            output.errorLine(stop.message)
            return ExitCode.failure
        case .success(let ready)?:
            if list.flags.contains("dry-run") {
                output.line("\(place): \(ready.label) would become: \(edit.summary) (dry run: nothing written)")
                for line in LineChange(from: ready.replacement.before, to: ready.replacement.after).lines { output.line(line) }
            } else {
                output.line("\(place): \(ready.label): \(edit.summary)")
            }
            return ExitCode.success
        case nil:
            output.errorLine("\(file): error: cannot read the file: no such file")
            return ExitCode.failure
        }
    }

    /// An interaction chosen and faulted, and the file's bytes with it.
    struct Prepared {
        var replacement: InteractionReplacement
        /// `interaction 3 (GET https://…)`.
        var label: String
    }

    /// Why the fault cannot be made: the line standard error gets.
    struct Stop: Error {
        var message: String
    }

    /// The fault made to the chosen interaction of `data` (FILE's bytes as they are now), written
    /// in `destination`'s format; or why not.
    private static func prepare(
        _ data: Data?, of file: String, choice: Choice, edit: FaultEdit, into destination: String
    ) -> Result<Prepared, Stop> {
        guard let data else { return .failure(Stop(message: "\(file): error: cannot read the file: no such file")) }
        let format = CassetteFormat(path: file)
        let document: CassetteDocument
        do {
            document = try format.decode(data, file: file)
        } catch {
            return .failure(Stop(message: error.description))
        }
        let index: Int
        switch choice.index(in: document) {
        case .success(let found): index = found
        case .failure(let problem): return .failure(Stop(message: "\(file): error: \(problem.message)"))
        }
        let original = document.interactions[index]
        let label = "interaction #\(index + 1) (\(original.request.method) \(original.request.url))"
        let changed: Interaction
        switch edit.applied(to: original) {
        case .success(let result): changed = result
        case .failure(let problem): return .failure(Stop(message: "\(file): error: \(label) cannot take this fault: \(problem.message)"))
        }
        do {
            let replacement = try InteractionReplacement.make(
                data: data, format: format, document: document, index: index, with: changed,
                in: CassetteFormat(path: destination), file: file)
            return .success(Prepared(replacement: replacement, label: label))
        } catch {
            return .failure(
                Stop(message: "\(file): error: \(label) cannot take this fault: \(error.problems.map(\.message).joined(separator: "; "))"))
        }
    }

    /// Which interaction the command line names.
    enum Choice {
        /// The `number`th, from 1.
        case number(Int)
        case match(method: String, url: String)

        func index(in document: CassetteDocument) -> Result<Int, FaultProblem> {
            let count = document.interactions.count
            switch self {
            case .number(let number):
                guard document.interactions.indices.contains(number - 1) else {
                    return .failure(
                        FaultProblem(
                            count == 0
                                ? "the cassette holds no interaction"
                                : "there is no interaction #\(number): the cassette holds \(count), numbered 1 to \(count) ('cassette show' lists them)"
                        ))
                }
                return .success(number - 1)
            case .match(let method, let url):
                let found = document.interactions.indices.filter { i in
                    let request = document.interactions[i].request
                    return request.method.uppercased() == method.uppercased() && Self.url(request.url, matches: url)
                }
                switch found.count {
                case 1: return .success(found[0])
                case 0:
                    return .failure(
                        FaultProblem("no interaction is \(method) \(url) ('cassette show' lists the \(count) it holds)"))
                default:
                    return .failure(
                        FaultProblem(
                            "\(found.count) interactions are \(method) \(url) (\(found.map { "#\($0 + 1)" }.joined(separator: ", "))); "
                                + "choose one with --interaction"))
                }
            }
        }

        /// A whole URL matches itself; a path (`/v1/feed`, `/v1/feed?page=2`) matches the URL's
        /// path, and its query when it gives one.
        private static func url(_ recorded: String, matches given: String) -> Bool {
            guard given.hasPrefix("/") else { return recorded == given }
            guard let components = URLComponents(string: recorded) else { return false }
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if given.contains("?") { return path + "?" + (components.percentEncodedQuery ?? "") == given }
            return path == given
        }
    }

    /// The fault and the choice of interaction, or what is wrong with the command line.
    private static func read(_ list: ArgumentList) -> Result<(FaultEdit, Choice), UsageProblem> {
        guard list.operands.count == 1 else {
            return .failure(UsageProblem(message: "'cassette fault' takes one cassette file, found \(list.operands.count)"))
        }
        func single(_ name: String) -> Result<String?, UsageProblem> {
            let values = list.values[name] ?? []
            guard values.count <= 1 else {
                return .failure(UsageProblem(message: "--\(name) is given \(values.count) times; give it once"))
            }
            return .success(values.first)
        }
        func count(_ name: String) -> Result<Int?, UsageProblem> {
            single(name).flatMap { text in
                guard let text else { return .success(nil) }
                guard let value = Int(text), value >= 0 else {
                    return .failure(
                        UsageProblem(
                            message:
                                "--\(name) takes a number of \(name.hasSuffix("events") ? "events" : "bytes"), zero or more, found '\(text)'"
                        ))
                }
                return .success(value)
            }
        }
        do {
            var edit = FaultEdit()
            let choice: Choice
            switch (try single("interaction").get(), try single("match").get()) {
            case (let given?, nil):
                let marked = given.hasPrefix("#")
                guard let number = Int(marked ? String(given.dropFirst()) : given), number >= 0 else {
                    throw UsageProblem(
                        message: "--interaction takes an interaction's number, from 1 as 'cassette show' numbers them, found '\(given)'")
                }
                guard number > 0 else {
                    throw UsageProblem(
                        message: "--interaction numbers interactions from 1, as 'cassette show', 'cassette report' and "
                            + "'cassette prune' do: there is no interaction 0 (before 1.0 'fault' counted from 0; "
                            + "that interaction is #1)")
                }
                choice = .number(number)
            case (nil, let match?):
                let parts = match.split(separator: " ", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[1].isEmpty else {
                    throw UsageProblem(message: "--match takes 'METHOD URL', like 'GET /v1/feed', found '\(match)'")
                }
                choice = .match(method: parts[0], url: parts[1])
            case (nil, nil):
                throw UsageProblem(message: "choose the interaction with --interaction N or --match 'METHOD URL'")
            default:
                throw UsageProblem(message: "give --interaction or --match, not both")
            }
            if let text = try single("status").get() {
                guard let status = Int(text), CassetteRules.statusProblem(status) == nil else {
                    throw UsageProblem(message: "--status takes an HTTP status from 100 to 599, found '\(text)'")
                }
                edit.status = status
            }
            if let body = try single("body").get() {
                if body.hasPrefix("@") {
                    let path = String(body.dropFirst())
                    do {
                        edit.body = try Data(contentsOf: URL(fileURLWithPath: path))
                    } catch {
                        throw UsageProblem(message: "--body \(body): cannot read \(path): \((error as NSError).localizedDescription)")
                    }
                } else {
                    edit.body = Data(body.utf8)
                }
            }
            for header in list.values["header"] ?? [] {
                guard let field = ArgumentList.headerField(header) else {
                    throw UsageProblem(message: "--header takes 'NAME: VALUE', like 'Retry-After: 30', found '\(header)'")
                }
                let (name, value) = (field.name.trimmingCharacters(in: .whitespaces), field.value)
                if let problem = CassetteRules.headerNameProblem(name) ?? CassetteRules.headerValueProblem(name: name, value: value) {
                    throw UsageProblem(message: "--header '\(header)': \(problem)")
                }
                edit.headers.append((name, value))
            }
            if let text = try single("error").get() {
                if let number = Int(text) {
                    edit.error = Interaction.TransportError.Code(rawValue: number)
                } else if let code = Interaction.TransportError.Code(name: text) {
                    edit.error = code
                } else {
                    throw UsageProblem(message: "--error: \(CassetteRules.unknownErrorCodeProblem(text))")
                }
            }
            edit.cutAfterBytes = try count("cut-after-bytes").get()
            edit.cutAfterEvents = try count("cut-after-events").get()
            if let text = try single("latency").get() {
                let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map {
                    Double($0.trimmingCharacters(in: .whitespaces))
                }
                guard numbers.count == 2, let firstByte = numbers[0], let duration = numbers[1] else {
                    throw UsageProblem(message: "--latency takes FIRSTBYTE,DURATION in seconds, like 0.5,2, found '\(text)'")
                }
                let latency = Latency.fixed(firstByte: firstByte, duration: duration)
                if let problem = latency.problem { throw UsageProblem(message: "--latency \(text): \(problem)") }
                edit.latency = latency
            }
            if let text = try single("rpc-status").get() {
                guard let code = RPCStatusCode(named: text) else {
                    throw UsageProblem(
                        message: "--rpc-status takes a status code's name (unavailable, deadline_exceeded, …) or number, 0 to 16, "
                            + "found '\(text)'")
                }
                edit.rpcStatus = code
            }
            edit.rpcMessage = try single("rpc-message").get()
            _ = try single("as-copy").get()
            guard !edit.isEmpty else {
                throw UsageProblem(
                    message: "say which fault: --status, --body, --header, --error, --cut-after-bytes, --cut-after-events, --latency "
                        + "or --rpc-status")
            }
            if let conflict = edit.conflict { throw UsageProblem(message: conflict) }
            return .success((edit, choice))
        } catch let problem as UsageProblem {
            return .failure(problem)
        } catch {
            return .failure(UsageProblem(message: "\(error)"))
        }
    }

    /// The file `--as-copy NAME` writes: cassette NAME as a tape names it (``CassetteStore``), in
    /// the cassette folder that holds FILE — `CASSETTE_FOLDER`, else `Cassettes/` at the package
    /// root — or in FILE's own folder when FILE is in neither; FILE's extension when NAME has none.
    static func copyFile(named name: String, of file: String, environment: CommandEnvironment) -> Result<String, CassetteError> {
        let absolute = URL(fileURLWithPath: file).standardizedFileURL
        let own = absolute.deletingLastPathComponent()
        let cassettes =
            environment.folder.map { URL(fileURLWithPath: $0).standardizedFileURL }
            ?? CassetteLocation.packageRoot(above: absolute.path)?.appendingPathComponent("Cassettes")
        let folder = cassettes.flatMap { absolute.path.hasPrefix($0.path + "/") ? $0 : nil } ?? own
        let store = CassetteStore(folder: folder, newExtension: absolute.pathExtension)
        do {
            return .success(try store.file(named: name).file.path)
        } catch {
            return .failure(error)
        }
    }
}
