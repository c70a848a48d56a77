import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A server's folder of cassettes: names find files inside it, never outside.
@Suite struct CassetteShelfTests {
    @Test func aNameFindsItsFileWithOrWithoutItsExtension() throws {
        try withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Feed"), withIntermediateDirectories: true)
            try Data().write(to: folder.appendingPathComponent("Feed/day.har"))
            let shelf = CassetteShelf(folder: folder)
            let real = folder.resolvingSymlinksInPath()
            #expect(try shelf.file(named: "Feed/day").path == real.appendingPathComponent("Feed/day.har").path)
            #expect(try shelf.file(named: "Feed/day.har").path == real.appendingPathComponent("Feed/day.har").path)
            #expect(try shelf.file(named: "Feed/new").path == real.appendingPathComponent("Feed/new.json").path)
        }
    }

    @Test func noNameLeavesTheFolder() throws {
        try withScratchTape { scratch in
            let folder = scratch.url.appendingPathComponent("UITests")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: scratch.file("outside.json"))
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("escape.json"), withDestinationURL: scratch.file("outside.json"))
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("up"), withDestinationURL: scratch.url)
            let shelf = CassetteShelf(folder: folder)
            for name in [
                "../../etc/passwd", "/etc/passwd", "..", "a/../../b", "a//b", "./a", "", "escape", "escape.json", "up/outside", "up/new",
            ] {
                #expect(throws: CassetteError.invalidCassetteName(name), "\(name)") { try shelf.file(named: name) }
            }
        }
    }
}
