import Foundation

/// Decodes `data` as `format`: a decoder may throw but never crash, and what decodes must
/// round-trip through every format (`CassetteFormat.roundTripProblem`), or the target traps.
func fuzzDecode<Bytes: DataProtocol>(_ data: Bytes, as format: CassetteFormat) {
    if let problem = format.roundTripProblem(of: Data(data)) {
        preconditionFailure(problem)
    }
}
