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
package enum LedgerRecord: Decodable, Sendable, Equatable {
    case process(Process)
    case tape(Tape)
    case end(End)

    /// The test process, written first.
    package struct Process: Decodable, Sendable, Equatable {
        package var pid: Int32
        package var started: Date
        /// The arguments the process was started with, and those of the test runner that
        /// started it (`swift test …`) when that is known.
        package var arguments: [String]
        package var runnerArguments: [String]?
        /// The argument that made the run partial (`--filter Feed`), or nil for a run of the
        /// whole suite.
        package var filter: String?

        package init(pid: Int32, started: Date, arguments: [String], runnerArguments: [String]?, filter: String?) {
            self.pid = pid
            self.started = started
            self.arguments = arguments
            self.runnerArguments = runnerArguments
            self.filter = filter
        }
    }

    /// What one tape did, written when it was ejected.
    package struct Tape: Decodable, Sendable, Equatable {
        /// The cassette's file, absolute.
        package var cassette: String
        /// Cassettes loaded beneath it, which answered what it had no recording for.
        package var beneath: [String]
        /// The test that opened it (`Feed/loads()`) and its source file, when known.
        package var test: String?
        package var testFile: String?
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

        package init(
            cassette: String, beneath: [String] = [], test: String? = nil, testFile: String? = nil, mode: String, opened: Date,
            interactions: Int, replayed: [Int] = [], oldestReplayed: Date? = nil, unused: [Int] = [], unusedShown: [String] = [],
            recorded: Int = 0, saved: Bool = false, misses: [String] = [], fileSize: Int? = nil, fileModified: Date? = nil,
            maximumAge: Double? = nil
        ) {
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
    package struct End: Decodable, Sendable, Equatable {
        package var ended: Date
        package init(ended: Date) { self.ended = ended }
    }

    private enum CodingKeys: String, CodingKey { case process, tape, end }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let process = try container.decodeIfPresent(Process.self, forKey: .process) {
            self = .process(process)
        } else if let tape = try container.decodeIfPresent(Tape.self, forKey: .tape) {
            self = .tape(tape)
        } else if let end = try container.decodeIfPresent(End.self, forKey: .end) {
            self = .end(end)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "expected an object with one member: \"process\", \"tape\" or \"end\""))
        }
    }

    /// The record as one line of the ledger, newline included. Written by hand (a tape writes one
    /// as it is ejected, and `JSONEncoder` would cost it more than the rest of the ledger); read
    /// back with `Decodable`, which the tests hold to the same shape.
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
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            switch Timestamp.parse(try container.decode(String.self)) {
            case .success(let date): return date
            case .failure(let error):
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
            }
        }
        var records: [LedgerRecord] = []
        var number = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            do {
                records.append(try decoder.decode(LedgerRecord.self, from: Data(line)))
            } catch {
                throw LedgerFileError(line: number, reason: Self.reason(error))
            }
        }
        return records
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "member \"\(key.stringValue)\" missing at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            return "expected \(type) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "\(error)"
        }
    }
}

/// A ledger file that is not all records: where, and why.
package struct LedgerFileError: Error, Sendable, Equatable {
    package var line: Int
    package var reason: String
}
