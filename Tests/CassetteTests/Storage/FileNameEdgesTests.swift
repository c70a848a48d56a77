import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// Names that fit are saved, and a folder is the same folder whichever way it is reached: a name of
/// 255 bytes (the temporary file once added 42 and failed "File name too long"), a folder reached
/// through a link that does not exist yet, a link whose target is not there yet, an extension
/// written in capitals.
@Suite struct FileNameEdgesTests {
    static let interaction = Interaction(request: .init(method: "GET", url: "https://api.example.com/a"), response: .init(status: 200))

    /// 250 letters and `.json`: the longest name Linux and APFS give a file, saved and read back.
    @Test func aNameOf255BytesIsSaved() throws {
        try withScratchTape { scratch in
            let store = CassetteStore(folder: scratch.url)
            let name = String(repeating: "a", count: 250)
            let (file, _) = try store.file(named: name)
            #expect(file.lastPathComponent.utf8.count == 255)
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: file)
            #expect(try CassetteFile.read(file).interactions == [Self.interaction])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers == [])
        }
    }

    /// `lnk -> real`; the folder `lnk/NewCassettes` does not exist yet: `feed` is a file in it
    /// (it was refused "a symbolic link that leads out of the folder"), and saving it creates
    /// `real/NewCassettes/feed.json`.
    @Test func aNewFolderReachedThroughALinkTakesNames() throws {
        try withScratchTape { scratch in
            let real = scratch.url.appendingPathComponent("real")
            try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: scratch.url.appendingPathComponent("lnk").path, withDestinationPath: "real")
            let store = CassetteStore(folder: scratch.url.appendingPathComponent("lnk/NewCassettes"))
            let (file, inBundle) = try store.file(named: "feed")
            #expect(file.path == scratch.url.appendingPathComponent("lnk/NewCassettes/feed.json").standardizedFileURL.path)
            #expect(!inBundle)
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: file)
            #expect(FileManager.default.fileExists(atPath: real.appendingPathComponent("NewCassettes/feed.json").path))
        }
    }

    /// A link in the folder whose target is not there yet: saving writes the target, and the link
    /// stays a link (it was replaced by a plain file).
    @Test func aDanglingLinkIsWrittenThrough() throws {
        try withScratchTape { scratch in
            let link = scratch.url.appendingPathComponent("feed.json")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "Shared/feed.json")
            let (file, _) = try CassetteStore(folder: scratch.url).file(named: "feed")
            #expect(file.lastPathComponent == "feed.json")
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: file)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "Shared/feed.json")
            #expect(try CassetteFile.read(scratch.url.appendingPathComponent("Shared/feed.json")).interactions == [Self.interaction])
        }
    }

    /// `Cassettes/Linked -> ../Outside`: a name that goes through the linked folder is outside the
    /// store, whether its file exists (`Linked/feed`) or would be created (`Linked/new`), and a
    /// link of one step (`escape.json -> ../Outside/feed.json`) too; a plain file of one step
    /// beside them is found without its real place being compared (the store skips that work for
    /// an entry of the folder itself, which is inside whatever the folder's own real place is).
    @Test func aNameThroughALinkOutOfTheFolderIsRefused() throws {
        try withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("Cassettes")
            let outside = scratch.url.appendingPathComponent("Outside")
            for place in [folder, outside] { try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true) }
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: outside.appendingPathComponent("feed.json"))
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: folder.appendingPathComponent("plain.json"))
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("Linked").path, withDestinationPath: "../Outside")
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("escape.json").path, withDestinationPath: "../Outside/feed.json")
            let store = CassetteStore(folder: folder)
            for name in ["Linked/feed", "Linked/new", "escape"] {
                #expect(throws: CassetteError.invalidCassetteName(name)) { try store.file(named: name) }
            }
            #expect(try store.file(named: "plain").file.path == folder.appendingPathComponent("plain.json").path)
            #expect(try store.file(named: "fresh").file.path == folder.appendingPathComponent("fresh.json").path)
        }
    }

    /// A link in the store to a sibling folder whose name is the store's in the other Unicode
    /// normalization (`café` decomposed beside `café` composed): on Linux another folder, outside,
    /// so refused — `String.hasPrefix`, which compares by canonical equivalence, let it in. On
    /// APFS the two names are one folder, and the link leads back into the store.
    @Test func aLinkToASiblingNamedInTheOtherNormalizationLeadsOut() throws {
        try withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("caf\u{E9}")
            let sibling = scratch.url.appendingPathComponent("cafe\u{301}")
            for place in [folder, sibling] { try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true) }
            let twoFolders = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).count == 2
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("Linked").path, withDestinationPath: "../cafe\u{301}")
            let store = CassetteStore(folder: folder)
            // Apple: APFS keeps one folder for both names (`twoFolders` false); the link leads back in.
            #if canImport(FoundationNetworking)
            #expect(twoFolders)
            #endif
            if twoFolders {
                #expect(throws: CassetteError.invalidCassetteName("Linked/feed")) { try store.file(named: "Linked/feed") }
            } else {
                #expect(try store.file(named: "Linked/feed").file.lastPathComponent == "feed.json")
            }
        }
    }

    /// `Feed` finds `Feed.JSON`, as it does on a case-insensitive file system, instead of creating
    /// `Feed.json` beside it.
    @Test func anExtensionInCapitalsIsFound() throws {
        try withScratchTape { scratch in
            let existing = scratch.url.appendingPathComponent("Feed.JSON")
            try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: existing)
            let (file, _) = try CassetteStore(folder: scratch.url).file(named: "Feed")
            #expect(file.lastPathComponent == "Feed.JSON")
        }
    }

    /// The misses a tape writes beside its cassette are evidence, never a cassette: the listing
    /// every command and the suite report use keeps them apart (lint counted `loads.misses.json`,
    /// report called it an orphan, prune planned to remove it), and the store refuses the name.
    @Test func aMissesFileIsNoCassette() throws {
        try withScratchTape { scratch in
            for name in ["loads.json", "loads.misses.json", "Other.MISSES.JSON"] {
                try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: scratch.url.appendingPathComponent(name))
            }
            let found = try #require(CassetteStore.scan(scratch.url.path))
            #expect(found.cassettes == [scratch.url.appendingPathComponent("loads.json").path])
            #expect(found.evidence == ["Other.MISSES.JSON", "loads.misses.json"].map { scratch.url.appendingPathComponent($0).path })
            #expect(CassetteStore.find(under: [scratch.url]).map(\.lastPathComponent) == ["loads.json"])
            for name in ["loads.misses", "loads.misses.json"] {
                #expect(throws: CassetteError.invalidCassetteName(name)) { try CassetteStore(folder: scratch.url).file(named: name) }
            }
        }
    }

    /// `café.json` composed (NFC) and decomposed (NFD): two files on Linux, whose file systems
    /// compare names by bytes — listed as two and counted as two (they were counted as one), and a
    /// test opening one leaves the other an orphan. APFS (macOS, iOS) compares names by their
    /// normalized form: the second write is the first file, one cassette.
    @Test func namesInTwoNormalizationsAreTwoFilesWhereTheFileSystemSaysSo() throws {
        try withScratchTape { scratch in
            let composed = "caf\u{E9}.json"
            let decomposed = "cafe\u{301}.json"
            for name in [composed, decomposed] {
                try CassetteFile.write(CassetteDocument(interactions: [Self.interaction]), to: scratch.url.appendingPathComponent(name))
            }
            let found = CassetteStore.find(under: [scratch.url])
            let listed = try #require(CassetteStore.scan(scratch.url.path)).cassettes
            #if os(Linux)
            #expect(found.count == 2)
            #expect(listed.count == 2)
            let ledger = scratch.url.appendingPathComponent("ledger")
            try LinkedCassettesTests.writeLedger(ledger, uses: [(scratch.url.appendingPathComponent(composed), [])])
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url])
            #expect(report.cassetteCount == 2)
            #expect(report.orphans.map { Array($0.lastPathComponent.utf8) } == [Array(decomposed.utf8)])
            #else
            #expect(found.count == 1)
            #expect(listed.count == 1)
            #endif
        }
    }
}
