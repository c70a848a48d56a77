import Testing

@testable import Cassette

/// Whether a path is inside a folder, byte for byte: the store and prune ask it of real places.
@Suite struct ExactPathTests {
    static let composed = "/work/caf\u{E9}"  // NFC
    static let decomposed = "/work/cafe\u{301}"  // NFD: canonically equivalent, other bytes

    @Test func aPathBelowTheFolderIsInside() {
        #expect(ExactPath(Self.composed + "/feed.json").isInside(ExactPath(Self.composed)))
        #expect(ExactPath(Self.composed + "/a/b/feed.json").isInside(ExactPath(Self.composed + "/")))
        #expect(ExactPath("/feed.json").isInside(ExactPath("/")))
    }

    @Test func theFolderItselfAndItsNamesakesAreNot() {
        #expect(!ExactPath(Self.composed).isInside(ExactPath(Self.composed)))
        #expect(!ExactPath(Self.composed + "s/feed.json").isInside(ExactPath(Self.composed)))
        #expect(!ExactPath("/work").isInside(ExactPath(Self.composed)))
        #expect(!ExactPath("/feed.json").isInside(ExactPath("")))
    }

    /// `String.hasPrefix` says yes (canonical equivalence); the file system, on Linux, says these
    /// are two folders.
    @Test func aSiblingInTheOtherNormalizationIsNotInside() {
        #expect((Self.decomposed + "/feed.json").hasPrefix(Self.composed + "/"))
        #expect(!ExactPath(Self.decomposed + "/feed.json").isInside(ExactPath(Self.composed)))
        #expect(!ExactPath(Self.composed + "/feed.json").isInside(ExactPath(Self.decomposed)))
    }
}
