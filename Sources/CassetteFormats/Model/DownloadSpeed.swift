import Foundation

/// How fast a replayed body arrives, in bytes per second — the download speeds of OHHTTPStubs.
///
/// ```swift
/// Latency.downloadSpeed(.edge)                      // 16 KB/s: 32 KB take 2 s
/// Latency.downloadSpeed(.init(bytesPerSecond: 2_000), firstByte: 0.2)
/// ```
///
/// A kilobyte is 1,024 bytes. In a cassette a preset is written by its name (`"edge"`), any
/// other speed as a number of bytes per second.
public struct DownloadSpeed: Sendable, Hashable, CustomStringConvertible {
    /// Bytes per second; greater than zero.
    public var bytesPerSecond: Double
    /// The preset's name (`"edge"`), or nil for a speed given as a number.
    public var name: String?

    /// A speed in bytes per second. It should be greater than zero: reading or saving a cassette
    /// whose latency uses another fails, saying why.
    public init(bytesPerSecond: Double) {
        self.bytesPerSecond = bytesPerSecond
        self.name = nil
    }

    private init(kilobytesPerSecond: Double, name: String) {
        self.bytesPerSecond = kilobytesPerSecond * 1024
        self.name = name
    }

    /// GPRS: 56 kbit/s, 7 KB/s.
    public static let gprs = DownloadSpeed(kilobytesPerSecond: 7, name: "gprs")
    /// EDGE: 128 kbit/s, 16 KB/s.
    public static let edge = DownloadSpeed(kilobytesPerSecond: 16, name: "edge")
    /// 3G: 3,200 kbit/s, 400 KB/s.
    public static let threeG = DownloadSpeed(kilobytesPerSecond: 400, name: "3g")
    /// 3G+ (HSDPA): 7,200 kbit/s, 900 KB/s.
    public static let threeGPlus = DownloadSpeed(kilobytesPerSecond: 900, name: "3g+")
    /// Wi-Fi: 12,000 kbit/s, 1,500 KB/s.
    public static let wifi = DownloadSpeed(kilobytesPerSecond: 1500, name: "wifi")

    /// The presets, slowest first.
    package static let presets: [DownloadSpeed] = [.gprs, .edge, .threeG, .threeGPlus, .wifi]

    /// The preset called `name` (`"edge"`, `"3g+"`…), or nil.
    package static func preset(named name: String) -> DownloadSpeed? {
        presets.first { $0.name == name }
    }

    /// Seconds needed to transfer `byteCount` bytes.
    package func seconds(for byteCount: Int) -> TimeInterval {
        bytesPerSecond > 0 ? Double(byteCount) / bytesPerSecond : 0
    }

    /// The preset name, or the number of bytes per second.
    public var description: String {
        name ?? JSONCassetteCodec.formatSeconds(bytesPerSecond)
    }

    /// Speeds are equal when their bytes per second are: `.edge == DownloadSpeed(bytesPerSecond: 16_384)`.
    public static func == (lhs: DownloadSpeed, rhs: DownloadSpeed) -> Bool {
        lhs.bytesPerSecond == rhs.bytesPerSecond
    }

    /// Hashes the speed by its bytes per second, as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytesPerSecond)
    }
}
