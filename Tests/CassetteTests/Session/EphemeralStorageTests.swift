import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A tape's own session is ephemeral: its cookie storage starts empty and is its own, whatever
/// tapes came before. On Linux the storage of an ejected tape's session may be handed to the next
/// tape, emptied (docs/Architecture.md, "Opening a tape's session"), but never one that anything
/// else can still reach; Apple platforms make a new one each time (`.ephemeral`).
@Suite struct EphemeralStorageTests {
    static let login = "https://api.example.com/login"

    /// A cassette whose one answer sets the cookie `sid=first`.
    static func cassette(in scratch: ScratchTape) throws -> URL {
        let file = scratch.file("login.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(method: "GET", url: login),
                    response: .init(status: 200, headers: ["Set-Cookie": "sid=first; Path=/"], body: .init(text: "in")))
            ])
        ).write(to: file)
        return file
    }

    static func cookies(in storage: HTTPCookieStorage?) -> [String] {
        (storage?.cookies ?? []).map { "\($0.name)=\($0.value)" }.sorted()
    }

    /// Opens a tape, logs in through its session, ejects it, and says which storage its session
    /// had (weakly: on Linux the kept storages stay alive, so two live ones are two storages).
    static func logIn(_ file: URL, refusingCookiesAfter: Bool = false) async throws -> Weak<HTTPCookieStorage> {
        let tape = try Tape(file: file, mode: .none, environment: .tests)
        let storage = try #require(tape.session.configuration.httpCookieStorage)
        #expect(cookies(in: storage) == [], "a new tape's session starts with no cookie")
        #expect(storage.cookieAcceptPolicy == firstPolicy, "a new tape's session starts with the policy .ephemeral gives")
        let (_, response) = try await tape.session.data(from: try #require(URL(string: login)))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(cookies(in: storage) == ["sid=first"])
        if refusingCookiesAfter { storage.cookieAcceptPolicy = .never }
        try tape.eject()
        return Weak(storage)
    }

    /// The cookie policy of a new ephemeral configuration's storage.
    static let firstPolicy = URLSessionConfiguration.ephemeral.httpCookieStorage?.cookieAcceptPolicy

    /// Forty tapes one after another, each logging in: each starts with no cookie and the first
    /// policy, though every other one set `.never` before its eject.
    @Test func eachTapeStartsWithNoCookieOfTheOnesBefore() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            for index in 0..<40 { _ = try await Self.logIn(file, refusingCookiesAfter: index.isMultiple(of: 2)) }
        }
    }

    // Apple: none — each tape's session has a new `.ephemeral` storage; nothing is kept.
    #if canImport(FoundationNetworking)
    /// Linux: once an ejected tape's storage is free, the next tape is handed a kept storage (that
    /// one, or another free one) rather than a new `.ephemeral` one. Another suite's tape may take
    /// the free storages first, so it is tried up to five times.
    @Test func aLaterTapeIsHandedAKeptStorage() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            var handedAKeptOne = false
            for _ in 0..<5 where !handedAKeptOne {
                // Nil when 64 tapes ejected since and it was dropped.
                guard let ejected = try await Self.logIn(file).value.map(ObjectIdentifier.init) else { continue }
                // Until it is free, or another suite's tape took it.
                let deadline = Date().addingTimeInterval(5)
                while !EphemeralStorage.isFree(ejected), EphemeralStorage.keptStorages.contains(ejected), Date() < deadline {
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                let kept = Set(EphemeralStorage.keptStorages)
                let tape = try Tape(file: file, mode: .none, environment: .tests)
                let storage = try #require(tape.session.configuration.httpCookieStorage)
                handedAKeptOne = kept.contains(ObjectIdentifier(storage))
                #expect(Self.cookies(in: storage) == [])
                try tape.eject()
            }
            #expect(handedAKeptOne)
        }
    }
    #endif

    /// A storage the caller still holds after the eject is never handed to a later tape, and keeps
    /// its cookie.
    @Test func aStorageTheCallerKeepsStaysItsOwn() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            let first = try Tape(file: file, mode: .none, environment: .tests)
            let held = try #require(first.session.configuration.httpCookieStorage)
            _ = try await first.session.data(from: try #require(URL(string: Self.login)))
            try first.eject()
            for _ in 0..<10 {
                let later = try await Self.logIn(file)
                #expect(later.value !== held)
            }
            #expect(Self.cookies(in: held) == ["sid=first"])
        }
    }

    /// Tapes open at the same time each have a storage of their own.
    @Test func tapesOpenTogetherHaveStoragesOfTheirOwn() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            _ = try await Self.logIn(file)  // a storage that may be handed out again
            let tapes = try (0..<5).map { _ in try Tape(file: file, mode: .none, environment: .tests) }
            let storages = try tapes.map { try #require($0.session.configuration.httpCookieStorage) }
            #expect(Set(storages.map(ObjectIdentifier.init)).count == 5)
            _ = try await tapes[0].session.data(from: try #require(URL(string: Self.login)))
            #expect(storages.map(Self.cookies(in:)) == [["sid=first"], [], [], [], []])
            for tape in tapes { try tape.eject() }
        }
    }
}

/// Holds a reference without keeping its object alive.
final class Weak<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}
