import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// `Tape.Options` is built the way the documentation shows it: every public option is a labelled
/// argument of its initializer, so `Tape.Options(writesMisses: true)` works for each of them.
@Suite struct OptionsInitializerTests {
    /// Read from the checked-in API (`API/Cassette.txt`, which `API/check` keeps equal to the code):
    /// a public `var` of `Tape.Options` that the initializer does not take fails here.
    @Test func everyPublicOptionIsAnArgumentOfTheInitializer() throws {
        let lines = try String(contentsOf: PackagePaths.root.appendingPathComponent("API/Cassette.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let options = lines.filter { $0.hasPrefix("Tape.Options.") && $0.contains(": var ") }
            .compactMap { $0.dropFirst("Tape.Options.".count).split(separator: ":").first.map(String.init) }
        let initializer = try #require(lines.first { $0.hasPrefix("Tape.Options.init(allowsRepeatedReplays:") })
        let labels = Set(initializer.prefix { $0 != ")" }.dropFirst("Tape.Options.init(".count).split(separator: ":").map(String.init))
        #expect(options.count == 17)
        #expect(options.filter { !labels.contains($0) } == [])
    }

    @Test func theLastTwoOptionsAreSetByTheirArguments() {
        let options = Tape.Options(writesMisses: true, schemaReference: "../cassette.schema.json")
        #expect(options.writesMisses)
        #expect(options.schemaReference == "../cassette.schema.json")
        #expect(!Tape.Options().writesMisses && Tape.Options().schemaReference == nil)
    }
}
