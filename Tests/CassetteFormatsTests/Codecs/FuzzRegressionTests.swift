import CassetteFormats
import Foundation
import Testing

/// Every input in `Fuzz/Regressions/TARGET/` — those the fuzzers or a review found to crash a
/// decoder or break a round trip — is now read or refused cleanly, and what is read round-trips
/// through every format. `Fuzz/run` fuzzes from them too.
@Suite struct FuzzRegressionTests {
    static let folder = Paths.packageRoot.appendingPathComponent("Fuzz/Regressions")

    /// Each regression input with the format its target reads it as.
    static var inputs: [(name: String, format: CassetteFormat, data: Data)] {
        let targets: [(String, CassetteFormat?)] = [
            ("decode_json", .json), ("decode_http", .httpMessages), ("decode_har", .har), ("round_trip", nil),
        ]
        return targets.flatMap { target, format -> [(String, CassetteFormat, Data)] in
            let directory = folder.appendingPathComponent(target)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            return names.compactMap { name in
                guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { return nil }
                if let format { return ("\(target)/\(name)", format, data) }
                // round_trip: the first byte picks the format, as in Fuzz/Targets/Targets.swift.
                guard let first = data.first else { return nil }
                return ("\(target)/\(name)", CassetteFormat.allCases[Int(first) % CassetteFormat.allCases.count], Data(data.dropFirst()))
            }
        }
    }

    @Test func everyRegressionInputIsReadOrRefusedAndRoundTrips() throws {
        let inputs = Self.inputs
        #expect(inputs.count >= 8, "the regression folders are read (\(Self.folder.path))")
        for input in inputs {
            #expect(input.format.roundTripProblem(of: input.data) == nil, "\(input.name)")
        }
    }

    /// A JSON cassette's `"json"` bodies read as compact bytes read as their trees do, or fail
    /// alike: the `decode_json` target's second check, on the inputs kept for it.
    @Test func compactBodiesReadAsTheirTrees() throws {
        var read = 0
        for input in Self.inputs where input.name.hasPrefix("decode_json/") {
            let compact = Result { () throws(CassetteFormatError) in try JSONCassetteCodec.decode(input.data) }
            let trees = Result { () throws(CassetteFormatError) in try JSONCassetteCodec.decodeFromTrees(input.data) }
            switch (compact, trees) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(input.name)")
                read += 1
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(input.name)")
            default: Issue.record("\(input.name): \(compact) against \(trees)")
            }
        }
        #expect(read >= 1)
    }
}
