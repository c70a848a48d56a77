/// This library's version, written into cassettes it records as `"recordedWith": "Cassette 0.1.0"`.
public enum CassetteVersion {
    /// The semantic version of this release.
    public static let current = "0.1.0"
    /// The `recordedWith` text of cassettes this version records.
    public static let recordedWith = "Cassette \(current)"
}
