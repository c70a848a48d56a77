#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A path compared by its bytes. Swift compares strings by canonical equivalence, so `café.json`
/// written composed (NFC) and decomposed (NFD) are one string, yet on Linux they are two files:
/// a set of paths counted them as one cassette while the listing showed two. Where files are
/// counted or matched, paths are keys of this type. Its UTF-8 is compared and hashed whole
/// (`memcmp`, one `combine`): a report over 10,000 cassettes makes several sets of them.
package struct ExactPath: Hashable, Comparable, Sendable {
    package let path: String

    package init(_ path: String) {
        var path = path
        path.makeContiguousUTF8()
        self.path = path
    }

    package static func == (left: ExactPath, right: ExactPath) -> Bool {
        compare(left, right) == 0
    }

    package func hash(into hasher: inout Hasher) {
        var path = self.path
        path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    package static func < (left: ExactPath, right: ExactPath) -> Bool {
        compare(left, right) < 0
    }

    /// Whether this path is below `folder`: the folder's bytes, a `/`, then more. Byte for byte,
    /// as the file system compares names, where `String.hasPrefix` compares by canonical
    /// equivalence: `…/cafe\u{301}/feed.json` (a sibling folder, decomposed) is not inside
    /// `…/caf\u{E9}` (composed), which on Linux is another folder. Both paths as
    /// ``RealPath`` gives them: absolute, without `.`, `..` or doubled slashes.
    package func isInside(_ folder: ExactPath) -> Bool {
        var (inner, outer) = (path, folder.path)
        return inner.withUTF8 { p in
            outer.withUTF8 { f in
                let slash = UInt8(ascii: "/")
                let length = f.last == slash ? f.count : f.count + 1
                guard p.count >= length, f.count > 0, let pp = p.baseAddress, let fp = f.baseAddress else { return false }
                return memcmp(pp, fp, f.count) == 0 && p[length - 1] == slash
            }
        }
    }

    /// The order of the two paths' bytes, as `memcmp` gives it (a prefix first).
    private static func compare(_ left: ExactPath, _ right: ExactPath) -> Int {
        var (a, b) = (left.path, right.path)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return Int(order) }
                }
                return x.count - y.count
            }
        }
    }
}
