import Foundation

/// gzip and zlib wrappers around "stored" (uncompressed) deflate blocks: valid compressed
/// streams that any decoder, libcurl's included, must accept, with no compression library.
public enum Compression {
    /// `data` as a gzip member (RFC 1952).
    public static func gzip(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        out += storedBlocks(data)
        out += littleEndian(crc32(data))
        out += littleEndian(UInt32(truncatingIfNeeded: data.count))
        return out
    }

    /// `data` as a zlib stream (RFC 1950), what HTTP calls `deflate`.
    public static func zlib(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        out += storedBlocks(data)
        let adler = adler32(data)
        out += Data([UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
        return out
    }

    private static func storedBlocks(_ data: Data) -> Data {
        var out = Data()
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let count = min(65535, bytes.count - offset)
            let isLast = offset + count >= bytes.count
            out.append(isLast ? 1 : 0)
            out += littleEndian(UInt16(count))
            out += littleEndian(~UInt16(count))
            out.append(contentsOf: bytes[offset..<(offset + count)])
            offset += count
        } while offset < bytes.count
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    static func adler32(_ data: Data) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return (b << 16) | a
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}
