import CassetteTestSupport
import Foundation
import Testing

/// The runtime's privacy manifest (`Sources/Cassette/PrivacyInfo.xcprivacy`): a valid property
/// list that declares every category of Apple's required-reason APIs used by the modules an app
/// can link (every library product that links neither Swift Testing nor XCTest — they all bring
/// `Cassette`, and its resource bundle, into the app), and nothing else, shipped as a resource of
/// the `Cassette` target. The products that do link a test framework are for test targets only,
/// and the README says so.
@Suite struct PrivacyManifestTests {
    static let manifest = PackagePaths.root.appendingPathComponent("Sources/Cassette/PrivacyInfo.xcprivacy")

    /// Apple's required-reason API categories, all five of them ("Describing use of required
    /// reason API"), each with the APIs Apple lists for it as they are spelt in Swift source.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "stat(", "getattrlist(", "getattrlistbulk(", "getattrlistat(", "creationDate", "modificationDate",
            "fileModificationDate", "contentModificationDateKey", "attributesOfItem",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time("],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            "volumeAvailableCapacity", "volumeTotalCapacity", "statfs(", "statvfs(", "getattrlist(", "systemFreeSize", "systemSize",
        ],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
    ]

    /// Each library product's target, read from `Package.swift` (one target per product).
    static func libraryTargets() throws -> [String] {
        let manifest = try String(contentsOf: PackagePaths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        return manifest.components(separatedBy: ".library(name: \"").dropFirst().compactMap { rest in
            rest.components(separatedBy: "targets: [\"").dropFirst().first?.components(separatedBy: "\"").first
        }
    }

    /// The Swift sources of `target`, with their text.
    static func sources(of target: String) throws -> [(name: String, text: String)] {
        let folder = PackagePaths.root.appendingPathComponent("Sources/\(target)")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    static func linksATestFramework(_ sources: [(name: String, text: String)]) -> Bool {
        sources.contains { source in
            source.text.split(separator: "\n").contains {
                ["import Testing", "import XCTest"].contains($0.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    @Test func theTestOnlyProductsAreTheOnesTheReadmeSaysAreForTestTargetsOnly() throws {
        let targets = try Self.libraryTargets()
        #expect(targets.sorted() == ["Cassette", "CassetteFormats", "CassetteServer", "CassetteTesting", "CassetteXCTest"])
        let testOnly = try targets.filter { Self.linksATestFramework(try Self.sources(of: $0)) }
        #expect(testOnly.sorted() == ["CassetteTesting", "CassetteXCTest"])
        let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let saysSo = readme.contains("`CassetteTesting` and `CassetteXCTest` are for test targets only")
        #expect(saysSo, "README.md, the products paragraph")
    }
    static func declared() throws -> [String: [String]] {
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: manifest), format: nil)
        let root = try #require(plist as? [String: Any])
        #expect(root["NSPrivacyTracking"] as? Bool == false)
        #expect((root["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        let types = try #require(root["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in types {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            declared[category] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        return declared
    }

    @Test func everyCategoryTheLinkableModulesUseIsDeclaredWithItsReason() throws {
        var used: [String: Set<String>] = [:]
        var scanned: [String] = []
        for target in try Self.libraryTargets() {
            let sources = try Self.sources(of: target)
            guard !Self.linksATestFramework(sources) else { continue }
            scanned.append(target)
            for source in sources {
                for (category, calls) in Self.categories where calls.contains(where: source.text.contains) {
                    used[category, default: []].insert("\(target)/\(source.name)")
                }
            }
        }
        #expect(scanned.sorted() == ["Cassette", "CassetteFormats", "CassetteServer"])
        #expect(used.keys.sorted() == ["NSPrivacyAccessedAPICategoryFileTimestamp"], "\(used)")
        #expect(try Self.declared() == ["NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]])
    }

    /// SwiftPM copies it into the target's resource bundle, next to the built products: on Linux
    /// `Cassette_Cassette.resources/PrivacyInfo.xcprivacy`; on macOS a `Cassette_Cassette.bundle`,
    /// where it may sit under `Contents/Resources`, so the bundle is searched.
    @Test func itIsCopiedAsAResourceOfTheRuntime() throws {
        let products = BuiltProducts.folder
        let bundles = try FileManager.default.contentsOfDirectory(atPath: products.path)
            .filter { $0.hasPrefix("Cassette_Cassette.") }
            .map { products.appendingPathComponent($0) }
        let copies = bundles.flatMap { bundle in
            (FileManager.default.subpaths(atPath: bundle.path) ?? []).filter { $0.hasSuffix("PrivacyInfo.xcprivacy") }
                .map { bundle.appendingPathComponent($0) }
        }
        #expect(copies.count == 1, "\(copies) in \(products.path)")
        let copy = try #require(copies.first, "no PrivacyInfo.xcprivacy in a Cassette_Cassette bundle in \(products.path)")
        #expect(try Data(contentsOf: copy) == Data(contentsOf: Self.manifest))
    }
}
