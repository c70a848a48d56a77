/// This library's version: the newest release in `CHANGELOG.md` (`## [1.1.0] - 2026-12-07`), which
/// `CassetteVersionTests` holds it equal to. Cassettes it records say `"recordedWith": "Cassette 1.1.0"`,
/// the same for every recording until the next release writes its heading and this line.
package enum CassetteVersion {
    /// The semantic version of the newest release.
    package static let current = "1.1.0"
    /// The `recordedWith` text of cassettes this version records.
    package static let recordedWith = "Cassette \(current)"
}
