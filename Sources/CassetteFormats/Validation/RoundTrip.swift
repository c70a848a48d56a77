import Foundation

extension CassetteFormat {
    /// What goes wrong when `data` is read as `self` and written back: nil when it does not
    /// decode (an error, fine), or when it re-encodes in every format to something that decodes
    /// equal (the round-trip promise); otherwise, what broke. The fuzz targets (`Fuzz/`) trap on
    /// an answer, and `FuzzRegressionTests` runs the inputs they found through it.
    package func roundTripProblem(of data: Data) -> String? {
        guard let document = try? decode(data, file: "input") else { return nil }
        for format in CassetteFormat.allCases {
            let encoded: Data
            do {
                encoded = try format.encode(document)
            } catch {
                return "decoded as \(self), but \(format) cannot encode it: \(error)"
            }
            let decoded: CassetteDocument
            do {
                decoded = try format.decode(encoded)
            } catch {
                return "decoded as \(self); \(format) wrote what it cannot read: \(error)"
            }
            // Only JSON holds a `$schema` (CassetteDocument.schema): the other formats leave it out.
            var expected = document
            if format != .json { expected.schema = nil }
            if decoded != expected {
                return "decoded as \(self); \(format) changed it:\n\(expected)\n\(decoded)"
            }
        }
        return nil
    }
}
