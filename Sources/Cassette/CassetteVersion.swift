/// This library's version, written into cassettes it records as `"recordedWith": "Cassette 0.1.0"`.
package enum CassetteVersion {
    /// The semantic version of this release.
    package static let current = "0.1.0"
    /// The `recordedWith` text of cassettes this version records.
    package static let recordedWith = "Cassette \(current)"
}
