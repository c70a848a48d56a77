import CassetteTestSupport
import Foundation
import Testing

#if os(Linux) || os(macOS)
/// `API/compatible`, the check of the release promise CI runs against the kept baseline: a
/// declaration removed or changed fails with what the code has now; one kept as a deprecated
/// forwarder, or a new one, passes.
@Suite(.timingIsolated) struct APICompatibilityTests {
    static let script = PackagePaths.root.appendingPathComponent("API/compatible")

    /// Writes `baseline` and `current` as two folders of `Cassette.txt` and runs the check.
    static func check(baseline: [String], current: [String]) throws -> (status: Int32, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-compatible-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, lines) in [("base", baseline), ("now", current)] {
            let sub = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: sub.appendingPathComponent("Cassette.txt"))
        }
        return try ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", script.path, folder.appendingPathComponent("base").path, folder.appendingPathComponent("now").path])
    }

    static let eject = "Tape.eject(testFailed:): @discardableResult func eject(testFailed: Bool = false) throws -> Tape.Report"
    static let tape = "Tape: final class Tape"

    @Test func keptRenamedWithAForwarderOrAddedPasses() throws {
        let result = try Self.check(
            baseline: [Self.tape, Self.eject],
            current: [Self.tape, "deprecated " + Self.eject, "Tape.finish(testFailed:): func finish(testFailed: Bool = false) throws"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("public API: every one of the 2 declarations of "))
    }

    @Test func aChangedDeclarationFailsWithWhatTheCodeHasNow() throws {
        let result = try Self.check(
            baseline: [Self.tape, Self.eject],
            current: [Self.tape, "Tape.eject(testFailed:): @discardableResult func eject(testFailed: Bool) throws -> Tape.Report"])
        #expect(result.status == 1)
        #expect(result.output.contains("error: 1 declaration(s) of "))
        #expect(
            result.output.contains(
                "  Cassette: \(Self.eject)\n    now: Tape.eject(testFailed:): @discardableResult func eject(testFailed: Bool) throws -> Tape.Report\n"
            ))
    }

    @Test func aRemovedDeclarationOrConformanceFails() throws {
        let conformance = "Tape: conforms to Sendable"
        let result = try Self.check(baseline: [Self.tape, Self.eject, conformance], current: [Self.tape])
        #expect(result.status == 1)
        #expect(result.output.contains("error: 2 declaration(s) of "))
        #expect(result.output.contains("  Cassette: \(Self.eject)\n    now: nothing of that name\n"))
        #expect(result.output.contains("  Cassette: \(conformance)\n    now: \(Self.tape)\n"))
    }

    /// The compatibility package (Tests/Compatibility) uses every declaration of today's API, as
    /// the compiler resolved its code (`API/covered`, over this build's modules): a declaration it
    /// never uses is listed, and so is one whose name its text holds only for other types (the
    /// check read the text before, where `description` anywhere counted for `Tape.description`).
    @Test func theCompatibilityPackageUsesEveryDeclaration() throws {
        let script = PackagePaths.root.appendingPathComponent("API/covered").path
        let modules = BuiltProducts.url(of: "Modules").path
        let api = ["Cassette", "CassetteFormats", "CassetteServer", "CassetteTesting", "CassetteXCTest"]
            .map { PackagePaths.root.appendingPathComponent("API/\($0).txt").path }
        let all = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--modules", modules] + api)
        #if !compiler(>=6.3)
        // Swift 6.2's compiler crashes dumping a closure in a macro's arguments (Traits.swift):
        // the check says so before trying, rather than judge a package it could not read.
        #expect(all.status == 2)
        #expect(all.output.hasPrefix("error: API/covered needs Swift 6.3 or later, and this is Swift version 6.2: "))
        #expect(all.output.hasSuffix("run it with Swift 6.3 or later, as CI's api step does\n"))
        #else
        #expect(all.status == 0, "\(all.output)")
        #expect(all.output == "compatibility package: uses every declaration of 5 API file(s), as the compiler resolved its code\n")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-covered-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let made = folder.appendingPathComponent("Cassette.txt")
        try Data(
            "Tape.rewindToTheStart(): func rewindToTheStart()\nTape.description: var description: String { get }\nTape: conforms to Sendable\n"
                .utf8
        ).write(to: made)
        let missing = try ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--modules", modules, made.path])
        #expect(missing.status == 1)
        #expect(
            missing.output
                == "error: 2 declaration(s) the compatibility package (Tests/Compatibility) never uses:\n"
                + "  Tape.rewindToTheStart(): func rewindToTheStart()\n  Tape.description: var description: String { get }\n"
                + "Use each as the documentation does in Tests/Compatibility/Sources, so a change that breaks it fails CI.\n")
        #endif
    }

    /// The gate fed each kind of break (`API/breaking --self-test`: a package released, then
    /// changed each way a caller's code stops compiling): SwiftPM's digester catches a new enum
    /// case, a changed constraint, a changed parameter type and a removal, and not what is
    /// `package` (a new case, a package overload of a public name changed); `API/compatible` over
    /// the kept lines a changed raw value and an added availability, which the digester misses on
    /// Linux; and code written against the release, type-checked against the change (as CI builds
    /// Tests/Compatibility), a new overload that makes its call ambiguous, which the digester sees
    /// as an addition.
    @Test func theGateCatchesEachKindOfBreak() throws {
        let gate = PackagePaths.root.appendingPathComponent("API/breaking").path
        let result = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", gate, "--self-test"])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output
                == "API/breaking self-test: each of 4 breaks caught (a case added to a public enum, a constraint changed, a parameter's "
                + "type changed, a declaration removed); a package enum's new case and a package overload's new parameter not "
                + "counted; API/compatible catches a raw value "
                + "changed and an availability added; a caller's build catches an overload that makes a call ambiguous\n")
    }

    /// `API/release V --verify`, which CI runs for the newest release, on a copy of the files it
    /// reads in a repository of its own: it names the tag a release lacks and the command that
    /// makes it, or a tag on the wrong commit; passes once tagged; in a clone without any tag it
    /// says it cannot tell and names the release commit; and it names what a broken README line or
    /// CHANGELOG heading needs.
    @Test func theReleaseCheckNamesWhatDoesNotHold() throws {
        let root = PackagePaths.root
        let version = try CassetteVersionTests.newestRelease()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-release-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let manager = FileManager.default
        try manager.createDirectory(at: folder.appendingPathComponent("API"), withIntermediateDirectories: true)
        let releases = try manager.contentsOfDirectory(atPath: root.appendingPathComponent("API").path).filter {
            $0.first?.isNumber == true
        }
        for name in ["API/release", "API/compatible", "CHANGELOG.md", "README.md"] + releases.map({ "API/" + $0 }) {
            try manager.copyItem(at: root.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        for file in try manager.contentsOfDirectory(atPath: root.appendingPathComponent("API").path) where file.hasSuffix(".txt") {
            try manager.copyItem(at: root.appendingPathComponent("API/" + file), to: folder.appendingPathComponent("API/" + file))
        }
        let script = folder.appendingPathComponent("API/release").path
        func verify() throws -> (status: Int32, output: String) {
            try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["bash", script, version, "--verify"])
        }
        @discardableResult func git(_ arguments: String...) throws -> String {
            let done = try ChildProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/env"),
                ["git", "-C", folder.path, "-c", "user.name=Release Test", "-c", "user.email=release@example.com"] + arguments)
            #expect(done.status == 0, "git \(arguments): \(done.output)")
            return done.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A clone that carries no tag at all (CI's is made without them) cannot show the tag: the
        // check says so and names the commit that released the version.
        try git("init", "-q")
        try git("add", "-A")
        try git("commit", "-q", "-m", "Cassette \(version)")
        let commit = try git("log", "--diff-filter=A", "--format=%h", "--", "API/\(version)")
        let noTags = try verify()
        #expect(noTags.status == 0, "\(noTags.output)")
        #expect(
            noTags.output.hasSuffix(
                ", released at \(commit);\n"
                    + "warning: this clone carries no tag at all (a clone made without tags, as CI's), so it cannot show that \(version) "
                    + "is tagged: run API/release \(version) --verify where the tags are kept\n"))
        let full = try git("rev-parse", "HEAD")
        let found = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["bash", script, version, "--commit"])
        #expect(found.output == "\(full) history\n")

        // A release nobody can pin is not released: in a clone with tags, one without its own is
        // named, with the command that makes it.
        try git("tag", "0.9.0")
        let untagged = try verify()
        #expect(untagged.status == 1)
        #expect(
            untagged.output
                == "error: CHANGELOG.md's newest release \(version) has no tag: make it at the commit that released it: "
                + "git tag -a \(version) \(commit) -m \"Cassette \(version)\" (API/release \(version) --tag at that commit), then push it\n"
        )
        // A tag on a commit that does not hold the release is named too.
        let empty = try git("commit-tree", "-m", "Not a release", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        try git("tag", "-a", version, empty, "-m", "Cassette \(version)")
        let misplaced = try verify()
        #expect(misplaced.status == 1)
        #expect(
            misplaced.output
                == "error: the tag \(version) names \(empty.prefix(commit.count)), which has no API/\(version)/: the tag belongs on the commit that released it\n"
        )
        try git("tag", "-d", version)
        try git("tag", "-a", version, "-m", "Cassette \(version)")

        let holds = try verify()
        #expect(holds.status == 0, "\(holds.output)")
        #expect(holds.output.hasPrefix("release \(version): API/\(version)/ is kept, the CHANGELOG dates it "))
        #expect(holds.output.hasSuffix(", tagged at \(commit)\n"))

        let readme = folder.appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "from: \"\(version)\"", with: #"from: "0.9.0""#).utf8).write(to: readme)
        let noLine = try verify()
        #expect(noLine.status == 1)
        #expect(noLine.output == "error: README.md's dependency line does not name from: \"\(version)\"\n")

        let changelog = folder.appendingPathComponent("CHANGELOG.md")
        let log = try String(contentsOf: changelog, encoding: .utf8)
        try Data(log.replacingOccurrences(of: "## [\(version)] - ", with: "## [\(version)] ").utf8).write(to: changelog)
        let noDate = try verify()
        #expect(noDate.status == 1)
        #expect(noDate.output.hasPrefix("error: CHANGELOG.md's first version heading is \"## [\(version)] 20"))
    }

    /// `API/pin`, which CI runs: the README's manifest with its dependency line, pointed at a copy
    /// of this repository by URL, resolves with SwiftPM to the newest release at the commit that
    /// released it (tagged in the copy when this clone carries no tag, as CI's), and its products
    /// are found there; its self-test sees SwiftPM refuse a product the release lacks, a version
    /// nobody tagged and a repository without the release's tag, as a team pasting the line would.
    @Test func theREADMEsDependencyLinePinsTheNewestRelease() throws {
        let root = PackagePaths.root
        let version = try CassetteVersionTests.newestRelease()
        func run(_ arguments: String...) throws -> (status: Int32, output: String) {
            try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments)
        }
        let release = try run("bash", root.appendingPathComponent("API/release").path, version, "--commit")
        let commit = try #require(release.output.split(separator: " ").first.map(String.init))
        let short = try run("git", "-C", root.path, "rev-parse", "--short", commit).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let tagged = try !run("git", "-C", root.path, "tag", "-l").output.isEmpty
        let pin = try run("bash", root.appendingPathComponent("API/pin").path)
        #expect(pin.status == 0, "\(pin.output)")
        #expect(
            pin.output
                == "release \(version): the README's manifest with .package(url: \"<the repository's URL>\", from: \"\(version)\") "
                + "resolves to \(version) at \(short) and finds its products ("
                + (tagged
                    ? "tagged \(version) in this checkout)\n"
                    : "this clone carries no tag, so \(version) was tagged in the copy at the commit that released it)\n"))
        let major = try #require(Int(version.prefix { $0 != "." }))
        let selfTest = try run("bash", root.appendingPathComponent("API/pin").path, "--self-test")
        #expect(selfTest.status == 0, "\(selfTest.output)")
        #expect(
            selfTest.output
                == "API/pin self-test: a product the release lacks, a line naming \(major + 1).0.0 (no such tag) and a repository "
                + "without the tag \(version) are each refused\n")
    }
}
#endif
