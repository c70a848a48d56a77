import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A cassette file under the mapping threshold is read from the descriptor opened to measure it:
/// every byte, at every size around the reads' steps; a folder is told apart; a file that is
/// not there fails as `Data(contentsOf:)` fails.
@Suite struct MappedFileTests {
    @Test(arguments: [0, 1, 4_095, 4_096, 4_097, 65_537, 1 << 20])
    func aSmallFileReadsWhole(size: Int) throws {
        try withScratchTape { scratch in
            var random = SeededGenerator(seed: UInt64(size) + 1)
            let bytes = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
            let file = scratch.file("bytes.bin")
            try bytes.write(to: file)
            let read = try MappedFile.read(file)
            #expect(read.data == bytes)
            #expect(read.release == nil)
        }
    }

    @Test func aFolderIsToldApart() throws {
        try withScratchTape { scratch in
            #expect(throws: MappedFile.IsFolder.self) { try MappedFile.read(scratch.folder.url) }
        }
    }

    @Test func aMissingFileFailsAsFoundationSays() throws {
        try withScratchTape { scratch in
            let file = scratch.file("missing.json")
            let foundation = #expect(throws: (any Error).self) { try Data(contentsOf: file) }
            let ours = #expect(throws: (any Error).self) { try MappedFile.read(file) }
            let theirs = try #require(foundation as NSError?)
            let mine = try #require(ours as NSError?)
            #expect(mine.domain == theirs.domain)
            #expect(mine.code == theirs.code)
            #expect(mine.code == CocoaError.fileReadNoSuchFile.rawValue)
        }
    }
}
