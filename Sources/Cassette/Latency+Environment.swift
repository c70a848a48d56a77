import Foundation

extension Latency {
    /// The environment variable that sets the latency of every tape whose code does not choose one.
    package static let environmentVariable = "CASSETTE_LATENCY"

    /// The latency a tape replays with: `requested` when the code chose one, else
    /// `CASSETTE_LATENCY`, else ``instant``. An interaction's own `"latency"` in the file still
    /// wins over the result.
    ///
    /// The code wins over the environment here (unlike the record mode): a test that chose a
    /// latency usually asserts on it — a timeout, a spinner — and a suite-wide
    /// `CASSETTE_LATENCY=recorded` must not break it.
    ///
    /// - Throws: ``CassetteError/invalidLatency(_:source:)`` when `CASSETTE_LATENCY` is set to
    ///   something ``init(parsing:)`` does not read.
    package static func resolve(requested: Latency?, environment: [String: String]) throws(CassetteError) -> Latency {
        if let requested { return requested }
        guard let text = environment[environmentVariable], !text.isEmpty else { return .instant }
        guard let latency = Latency(parsing: text) else { throw .invalidLatency(text, source: environmentVariable) }
        return latency
    }
}
