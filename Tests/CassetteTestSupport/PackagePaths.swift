import Foundation

/// Folders of this package, for tests that read committed files.
public enum PackagePaths {
    /// The folder holding `Package.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Cassettes/Examples`.
    public static let examples = root.appendingPathComponent("Cassettes/Examples")
    /// `Cassettes`.
    public static let cassettes = root.appendingPathComponent("Cassettes")
}
