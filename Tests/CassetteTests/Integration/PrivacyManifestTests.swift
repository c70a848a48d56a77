import CassetteTestSupport
import Foundation
import Testing

/// The runtime's privacy manifest (`Sources/Cassette/PrivacyInfo.xcprivacy`): a valid property
/// list that declares every category of Apple's required-reason APIs the runtime's sources use,
/// and nothing else, shipped as a resource of the `Cassette` target.
@Suite struct PrivacyManifestTests {
    static let manifest = PackagePaths.root.appendingPathComponent("Sources/Cassette/PrivacyInfo.xcprivacy")

    /// Apple's required-reason categories, each with the calls in Swift source that belong to it.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "stat(", "fstat(", "lstat(", "getattrlist(", "contentModificationDateKey", "creationDateKey", ".modificationDate",
            "attributesOfItem",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time("],
        "NSPrivacyAccessedAPICategoryDiskSpace": ["volumeAvailableCapacity", "statfs(", "systemFreeSize", "systemSize"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
    ]

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

    @Test func everyCategoryTheSourcesUseIsDeclaredWithItsReason() throws {
        let sources = PackagePaths.root.appendingPathComponent("Sources/Cassette")
        var used: [String: [String]] = [:]
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (category, calls) in Self.categories where calls.contains(where: text.contains) {
                used[category, default: []].append(file.lastPathComponent)
            }
        }
        #expect(used.keys.sorted() == ["NSPrivacyAccessedAPICategoryFileTimestamp"], "\(used)")
        #expect(try Self.declared() == ["NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]])
        #expect(Set(try Self.declared().keys) == Set(used.keys))
    }

    /// SwiftPM copies it into the target's resource bundle, next to the built products.
    @Test func itIsCopiedAsAResourceOfTheRuntime() throws {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let bundled = try FileManager.default.contentsOfDirectory(atPath: products.path)
            .filter { $0.hasPrefix("Cassette_Cassette.") }
            .map { products.appendingPathComponent($0).appendingPathComponent("PrivacyInfo.xcprivacy") }
        let copy = try #require(bundled.first { FileManager.default.fileExists(atPath: $0.path) }, "in \(products.path)")
        #expect(try Data(contentsOf: copy) == Data(contentsOf: Self.manifest))
    }
}
