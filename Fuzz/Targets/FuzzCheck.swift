import Foundation

/// Decodes `data` as `format`: a decoder may throw but never crash, and what decodes must
/// round-trip through every format (`CassetteFormat.roundTripProblem`), or the target traps.
func fuzzDecode<Bytes: DataProtocol>(_ data: Bytes, as format: CassetteFormat) {
    if let problem = format.roundTripProblem(of: Data(data)) {
        // Optimised builds drop a precondition's message: say it first.
        FileHandle.standardError.write(Data("round trip broken: \(problem)\n".utf8))
        preconditionFailure(problem)
    }
}
