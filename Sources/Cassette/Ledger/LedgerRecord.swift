import Foundation

/// One line of a suite ledger: what a test process was, what one tape did, or that the process
/// ended. Each test process appends these, one JSON object per line, to a file of its own in its
/// run's folder; `cassette report` and `cassette prune` read them back.
///
/// ```
/// {"process":{"pid":4711,"started":"2026-11-26T05:00:00.000Z","arguments":["--testing-library","swift-testing"],"filter":null}}
/// {"tape":{"cassette":"/pkg/Cassettes/Feed/loads.json","test":"Feed/loads()","mode":"none",...}}
/// {"end":{"ended":"2026-11-26T05:00:09.000Z"}}
/// ```
package enum LedgerRecord: Sendable, Equatable {
    /// The `mode` of a tape that was a pass-through (``Tape/isLive``): nothing replayed or recorded.
    package static let liveMode = "live"

    case process(Process)
    case tape(Tape)
    case end(End)

    /// The test process, written first.
    package struct Process: Sendable, Equatable {
        package var pid: Int32
        package var started: Date
        /// The arguments the process was started with, and those of the test runner that
        /// started it (`swift test …`) when that is known.
        package var arguments: [String]
        package var runnerArguments: [String]?
        /// The argument that made the run partial (`--filter Feed`), or nil for a run of the
        /// whole suite.
        package var filter: String?
        /// The shard of a suite split over several machines (`CASSETTE_SHARD`), or nil: every
        /// record of the process's file was written by it.
        package var shard: String?

        package init(
            pid: Int32, started: Date, arguments: [String], runnerArguments: [String]?, filter: String?, shard: String? = nil
        ) {
            self.pid = pid
            self.started = started
            self.arguments = arguments
            self.runnerArguments = runnerArguments
            self.filter = filter
            self.shard = shard
        }
    }

    /// What one tape did, written when it was ejected.
    package struct Tape: Sendable, Equatable {
        /// The cassette's file, absolute.
        package var cassette: String
        /// Cassettes loaded beneath it, which answered what it had no recording for.
        package var beneath: [String]
        /// The test that opened it (`Feed/loads()`) and its source file, when known.
        package var test: String?
        package var testFile: String?
        /// The record mode (`RecordMode.rawValue`), or ``LedgerRecord/liveMode``.
        package var mode: String
        package var opened: Date
        /// How many interactions the cassette had when it was opened.
        package var interactions: Int
        /// The interactions (1-based) that answered a request.
        package var replayed: [Int]
        /// The oldest `recordedAt` among the replayed interactions: how old what the test relies
        /// on is (not the oldest interaction in the file).
        package var oldestReplayed: Date?
        /// The interactions (1-based) that answered nothing, as `#3 GET https://…`.
        package var unused: [Int]
        package var unusedShown: [String]
        /// How many interactions were recorded, and whether the file was written.
        package var recorded: Int
        package var saved: Bool
        /// The requests no recording answered (`GET https://…`).
        package var misses: [String]
        /// The file as the tape left it: its size and modification time, so that a later change
        /// (a hand edit, a re-recording) is noticed before the ledger's word about it is used.
        package var fileSize: Int?
        package var fileModified: Date?
        /// The staleness policy's maximum age, in seconds, when the tape had one.
        package var maximumAge: Double?
        /// The package the tape's test belongs to, absolute (its `Package.swift`'s folder): shards
        /// run on other machines, in other folders, and their cassettes are matched by their place
        /// in the package.
        package var root: String?

        package init(
            cassette: String, beneath: [String] = [], test: String? = nil, testFile: String? = nil, mode: String, opened: Date,
            interactions: Int, replayed: [Int] = [], oldestReplayed: Date? = nil, unused: [Int] = [], unusedShown: [String] = [],
            recorded: Int = 0, saved: Bool = false, misses: [String] = [], fileSize: Int? = nil, fileModified: Date? = nil,
            maximumAge: Double? = nil, root: String? = nil
        ) {
            self.root = root
            self.cassette = cassette
            self.beneath = beneath
            self.test = test
            self.testFile = testFile
            self.mode = mode
            self.opened = opened
            self.interactions = interactions
            self.replayed = replayed
            self.oldestReplayed = oldestReplayed
            self.unused = unused
            self.unusedShown = unusedShown
            self.recorded = recorded
            self.saved = saved
            self.misses = misses
            self.fileSize = fileSize
            self.fileModified = fileModified
            self.maximumAge = maximumAge
        }
    }

    /// Written when the process exits normally; a file without it was cut short.
    package struct End: Sendable, Equatable {
        package var ended: Date
        package init(ended: Date) { self.ended = ended }
    }

    /// The record as one line of the ledger, newline included. Written member by member (a tape
    /// writes one as it is ejected); read back with the project's JSON (``LedgerLineReader``), which
    /// the tests hold to the same shape.
    package var line: Data {
        var line = LineWriter()
        switch self {
        case .process(let process):
            line.open("process")
            line.member("pid", number: Int(process.pid))
            line.member("started", date: process.started)
            line.member("arguments", strings: process.arguments)
            if let runner = process.runnerArguments { line.member("runnerArguments", strings: runner) }
            if let filter = process.filter { line.member("filter", string: filter) }
            if let shard = process.shard { line.member("shard", string: shard) }
        case .tape(let tape):
            line.open("tape")
            line.member("cassette", string: tape.cassette)
            line.member("beneath", strings: tape.beneath)
            if let test = tape.test { line.member("test", string: test) }
            if let file = tape.testFile { line.member("testFile", string: file) }
            line.member("mode", string: tape.mode)
            line.member("opened", date: tape.opened)
            line.member("interactions", number: tape.interactions)
            line.member("replayed", numbers: tape.replayed)
            if let oldest = tape.oldestReplayed { line.member("oldestReplayed", date: oldest) }
            line.member("unused", numbers: tape.unused)
            line.member("unusedShown", strings: tape.unusedShown)
            line.member("recorded", number: tape.recorded)
            line.member("saved", bool: tape.saved)
            line.member("misses", strings: tape.misses)
            if let size = tape.fileSize { line.member("fileSize", number: size) }
            if let modified = tape.fileModified { line.member("fileModified", date: modified) }
            if let age = tape.maximumAge { line.member("maximumAge", double: age) }
            if let root = tape.root { line.member("root", string: root) }
        case .end(let end):
            line.open("end")
            line.member("ended", date: end.ended)
        }
        return line.finished()
    }

    /// `{"kind":{…}}` and a newline, member by member.
    private struct LineWriter {
        var bytes: [UInt8] = []
        var first = true

        mutating func open(_ kind: String) {
            bytes.append(UInt8(ascii: "{"))
            JSONWriter.appendString(kind, to: &bytes)
            bytes += Array(":{".utf8)
        }

        mutating func key(_ name: String) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }

        mutating func member(_ name: String, string: String) {
            key(name)
            JSONWriter.appendString(string, to: &bytes)
        }

        mutating func member(_ name: String, strings: [String]) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(string, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        mutating func member(_ name: String, number: Int) {
            key(name)
            bytes += Array(String(number).utf8)
        }

        mutating func member(_ name: String, numbers: [Int]) {
            key(name)
            bytes += Array(("[" + numbers.map(String.init).joined(separator: ",") + "]").utf8)
        }

        mutating func member(_ name: String, double: Double) {
            key(name)
            bytes += Array((double.isFinite ? "\(double)" : "0").utf8)
        }

        mutating func member(_ name: String, bool: Bool) {
            key(name)
            bytes += Array((bool ? "true" : "false").utf8)
        }

        mutating func member(_ name: String, date: Date) {
            member(name, string: Timestamp.format(date) ?? "1970-01-01T00:00:00.000Z")
        }

        mutating func finished() -> Data {
            bytes += Array("}}\n".utf8)
            return Data(bytes)
        }
    }

    /// Reads the lines of a ledger file. Throws ``LedgerFileError`` naming the first line that is
    /// not a record (a file cut short by a killed process ends in one).
    package static func records(in data: Data) throws(LedgerFileError) -> [LedgerRecord] {
        var records: [LedgerRecord] = []
        var number = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            switch LedgerLineReader.record(in: Data(line)) {
            case .success(let record): records.append(record)
            case .failure(let reason): throw LedgerFileError(line: number, reason: reason.text)
            }
        }
        return records
    }
}

/// Reads one ledger line with the helpers every JSON reader of Cassette shares
/// (``JSONTreeReading``). Members it does not know are left alone: a ledger written by a newer
/// Cassette still reads.
private struct LedgerLineReader: JSONTreeReading {
    var problems: [(path: JSONPath, offset: Int, message: String)] = []
    var misspelt: Set<JSONMisspeltKey> = []

    struct Reason: Error {
        var text: String
    }

    static func record(in line: Data) -> Result<LedgerRecord, Reason> {
        let root: JSONNode
        do {
            root = try JSONParser.parse(line)
        } catch {
            return .failure(Reason(text: error.message))
        }
        var reader = LedgerLineReader()
        let record = reader.record(root)
        if let record, reader.problems.isEmpty { return .success(record) }
        let first = reader.problems.first
        let place = first.map { $0.path.components.isEmpty ? "" : "\($0.path): " } ?? ""
        return .failure(Reason(text: place + (first?.message ?? "not a ledger record")))
    }

    private mutating func record(_ root: JSONNode) -> LedgerRecord? {
        guard case .object(let members) = root.value, members.count == 1, let member = members.first,
            ["process", "tape", "end"].contains(member.key)
        else {
            report(#"expected an object with one member: "process", "tape" or "end""#, at: .root, offset: root.offset)
            return nil
        }
        let path = JSONPath.root.appending(member.key)
        guard isObject(member.value, at: path, expected: "an object") else { return nil }
        switch member.key {
        case "process": return process(member.value, at: path).map(LedgerRecord.process)
        case "tape": return tape(member.value, at: path).map(LedgerRecord.tape)
        default: return need("ended", in: member.value, at: path, Self.date).map { LedgerRecord.end(.init(ended: $0)) }
        }
    }

    private mutating func process(_ node: JSONNode, at path: JSONPath) -> LedgerRecord.Process? {
        guard let pid = need("pid", in: node, at: path, { $0.readInteger($1, at: $2, expected: "a process ID") }),
            let processID = Int32(exactly: pid),
            let started = need("started", in: node, at: path, Self.date),
            let arguments = need("arguments", in: node, at: path, Self.strings)
        else { return nil }
        return LedgerRecord.Process(
            pid: processID, started: started, arguments: arguments,
            runnerArguments: optional("runnerArguments", in: node, at: path, Self.strings),
            filter: optional("filter", in: node, at: path, Self.string),
            shard: optional("shard", in: node, at: path, Self.string))
    }

    private mutating func tape(_ node: JSONNode, at path: JSONPath) -> LedgerRecord.Tape? {
        guard let cassette = need("cassette", in: node, at: path, Self.string),
            let beneath = need("beneath", in: node, at: path, Self.strings),
            let mode = need("mode", in: node, at: path, Self.string),
            let opened = need("opened", in: node, at: path, Self.date),
            let interactions = need("interactions", in: node, at: path, Self.integer),
            let replayed = need("replayed", in: node, at: path, Self.integers),
            let unused = need("unused", in: node, at: path, Self.integers),
            let unusedShown = need("unusedShown", in: node, at: path, Self.strings),
            let recorded = need("recorded", in: node, at: path, Self.integer),
            let saved = need("saved", in: node, at: path, { $0.readBool($1, at: $2) }),
            let misses = need("misses", in: node, at: path, Self.strings)
        else { return nil }
        return LedgerRecord.Tape(
            cassette: cassette, beneath: beneath, test: optional("test", in: node, at: path, Self.string),
            testFile: optional("testFile", in: node, at: path, Self.string), mode: mode, opened: opened, interactions: interactions,
            replayed: replayed, oldestReplayed: optional("oldestReplayed", in: node, at: path, Self.date), unused: unused,
            unusedShown: unusedShown, recorded: recorded, saved: saved, misses: misses,
            fileSize: optional("fileSize", in: node, at: path, Self.integer),
            fileModified: optional("fileModified", in: node, at: path, Self.date),
            maximumAge: optional("maximumAge", in: node, at: path, { $0.readSeconds($1, at: $2) }),
            root: optional("root", in: node, at: path, Self.string))
    }

    // MARK: Members

    private typealias Read<T> = (inout LedgerLineReader, JSONNode, JSONPath) -> T?

    /// The member `key`, read; nil (reported) when it is absent or wrong.
    private mutating func need<T>(_ key: String, in node: JSONNode, at path: JSONPath, _ read: Read<T>) -> T? {
        guard let value = required(key, in: node, at: path, expecting: "a member \"\(key)\"") else { return nil }
        return read(&self, value, path.appending(key))
    }

    /// The member `key`, read; nil when it is absent or null (reported when it is wrong).
    private mutating func optional<T>(_ key: String, in node: JSONNode, at path: JSONPath, _ read: Read<T>) -> T? {
        guard let value = node.memberValue(key) else { return nil }
        if case .null = value.value { return nil }
        return read(&self, value, path.appending(key))
    }

    private static func string(_ reader: inout LedgerLineReader, _ node: JSONNode, _ path: JSONPath) -> String? {
        reader.readString(node, at: path, expected: "a string")
    }

    private static func strings(_ reader: inout LedgerLineReader, _ node: JSONNode, _ path: JSONPath) -> [String]? {
        reader.readStrings(node, at: path, expected: "an array of strings")
    }

    private static func integer(_ reader: inout LedgerLineReader, _ node: JSONNode, _ path: JSONPath) -> Int? {
        reader.readInteger(node, at: path, expected: "a number")
    }

    private static func integers(_ reader: inout LedgerLineReader, _ node: JSONNode, _ path: JSONPath) -> [Int]? {
        reader.readIntegers(node, at: path, expected: "an array of numbers")
    }

    private static func date(_ reader: inout LedgerLineReader, _ node: JSONNode, _ path: JSONPath) -> Date? {
        reader.readTimestamp(node, at: path)
    }
}

/// A ledger file that is not all records: where, and why.
package struct LedgerFileError: Error, Sendable, Equatable {
    package var line: Int
    package var reason: String
}
