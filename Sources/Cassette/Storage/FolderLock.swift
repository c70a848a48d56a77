import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a folder (`flock` on the folder itself, so no lock file is left
/// in it), shared by every process and every thread that saves a cassette there. The system
/// releases it when its holder dies, so a killed test process never leaves it held.
enum FolderLock {
    /// Runs `body` while holding the lock of `folder`; waits for it if another save holds it.
    static func holding<Result>(_ folder: URL, for file: URL, _ body: () throws(CassetteError) -> Result) throws(CassetteError) -> Result {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw .saveFailed(
                file: file.path, reason: "cannot open the folder \(folder.path) to lock it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw .saveFailed(file: file.path, reason: "cannot lock the folder \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
