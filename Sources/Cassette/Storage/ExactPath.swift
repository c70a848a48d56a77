/// A path compared by its bytes. Swift compares strings by canonical equivalence, so `café.json`
/// written composed (NFC) and decomposed (NFD) are one string, yet on Linux they are two files:
/// a set of paths counted them as one cassette while the listing showed two. Where files are
/// counted or matched, paths are keys of this type.
package struct ExactPath: Hashable, Comparable, Sendable {
    package let path: String

    package init(_ path: String) {
        self.path = path
    }

    package static func == (left: ExactPath, right: ExactPath) -> Bool {
        left.path.utf8.elementsEqual(right.path.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        for byte in path.utf8 { hasher.combine(byte) }
    }

    package static func < (left: ExactPath, right: ExactPath) -> Bool {
        left.path.utf8.lexicographicallyPrecedes(right.path.utf8)
    }
}
