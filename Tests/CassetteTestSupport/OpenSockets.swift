import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's open descriptors, read the same way on Linux, macOS and the iOS simulator: the
/// entries of `/dev/fd` (on Linux a link to the process's descriptor folder; on Apple systems the
/// `fdesc` file system, which lists the calling process's descriptors), each asked with `fstat`
/// and `getsockname`. For tests that check a server closes what it opened.
public enum OpenSockets {
    /// The descriptors open in this process (the one that lists them included), or nil where
    /// `/dev/fd` cannot be listed.
    public static func descriptors() -> [Int32]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd") else { return nil }
        return names.compactMap { Int32($0) }.sorted()
    }

    /// How many of this process's TCP sockets (IPv4 and IPv6) have local port `port`: an
    /// in-process server's listener and the connections it accepted. -1 where the descriptors
    /// cannot be listed.
    public static func count(localPort port: Int) -> Int {
        guard let descriptors = descriptors() else { return -1 }
        return descriptors.filter { localPort(of: $0) == port }.count
    }

    /// The local port of `descriptor` when it is an IPv4 or IPv6 stream socket; nil otherwise (a
    /// file, a pipe, a descriptor closed meanwhile).
    public static func localPort(of descriptor: Int32) -> Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        var type: Int32 = 0
        var typeSize = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &typeSize) == 0, type == streamType else { return nil }
        var address = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: &address) { pointer -> Int? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default:
                return nil
            }
        }
    }

    private static var streamType: Int32 {
        #if canImport(Darwin)
        SOCK_STREAM
        #else
        Int32(SOCK_STREAM.rawValue)
        #endif
    }
}
