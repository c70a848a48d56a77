import Foundation
import Testing

@testable import Cassette

/// A path as Cassette prints it: no `.` or `..`, and relative to the current folder (the
/// package's) when inside it.
@Suite struct ShownPathTests {
    @Test(arguments: [
        ("Cassettes/HTTPBinTests/../Slideshow/503-tool.json", "/pkg", "Cassettes/Slideshow/503-tool.json"),
        ("/pkg/Cassettes/Users/fetch.json", "/pkg", "Cassettes/Users/fetch.json"),
        ("/pkg/../pkg/Cassettes/./a.json", "/pkg/", "Cassettes/a.json"),
        ("/other/Cassettes/a.json", "/pkg", "/other/Cassettes/a.json"),
        ("/pkgs/a.json", "/pkg", "/pkgs/a.json"),
        ("../elsewhere/a.json", "/pkg/Tests", "/pkg/elsewhere/a.json"),
    ])
    func aPathIsShownWithoutDotsAndFromTheCurrentFolder(path: String, folder: String, shown: String) {
        #expect(ShownPath.of(path, from: folder) == shown)
    }
}
