import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sending many requests, one at a time or many in flight, and checking each answer.
enum Requests {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `urls` in order, one at a time, with `data(for:)`; each answer must be a 200 with `bodySize` bytes.
    static func sequential(_ urls: [URL], on session: URLSession, bodySize: Int) async throws {
        for url in urls { try await fetch(url, on: session, bodySize: bodySize) }
    }

    /// Sends `urls` with `inFlight` requests at a time.
    static func concurrent(_ urls: [URL], inFlight: Int, on session: URLSession, bodySize: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    for index in stride(from: worker, to: urls.count, by: inFlight) {
                        try await fetch(urls[index], on: session, bodySize: bodySize)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func fetch(_ url: URL, on session: URLSession, bodySize: Int) async throws {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200, data.count == bodySize else {
            throw Failed(
                description: "\(url): status \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data.count) bytes, expected \(bodySize)")
        }
    }
}
