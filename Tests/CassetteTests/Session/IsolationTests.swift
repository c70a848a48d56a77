import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Parallel tests each use their own cassette: the same URL answers differently per cassette,
/// and no request ever gets another cassette's answer.
@Suite struct IsolationTests {
    static let itemsPerCassette = 50

    /// Cassette `owner`: `GET https://api.example.com/items/J` answers `owner:J`, for every J.
    static func writeCassette(owner: Int, to file: URL) throws {
        let interactions = (0..<itemsPerCassette).map { item in
            Interaction(
                request: .init(method: "GET", url: "https://api.example.com/items/\(item)"),
                response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: "\(owner):\(item)")))
        }
        try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: file)
    }

    @Test func twentyFourCassettesInConcurrentTasksNeverCrossTalk() async throws {
        try await withScratchTape { scratch in
            let owners = 0..<24
            var tapes: [Tape] = []
            for owner in owners {
                let file = scratch.file("owner-\(owner).json")
                try Self.writeCassette(owner: owner, to: file)
                tapes.append(try Tape(file: file, mode: .none, environment: .tests))
            }
            let sessions = tapes.map(\.session)
            let answers = await withTaskGroup(of: (Int, Int, String).self) { group in
                for owner in owners {
                    for item in 0..<Self.itemsPerCassette {
                        group.addTask {
                            let fetched = await Fetch.get("https://api.example.com/items/\(item)", on: sessions[owner])
                            return (owner, item, fetched.text)
                        }
                    }
                }
                var answers: [(Int, Int, String)] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers.count == 1_200)
            let wrong = answers.filter { $0.2 != "\($0.0):\($0.1)" }
            #expect(wrong.isEmpty, "cross-talk: \(wrong.prefix(5))")
            for tape in tapes {
                let report = try tape.eject()
                #expect(report.replayed == Self.itemsPerCassette && report.unusedInteractions.isEmpty && report.unmatched.isEmpty)
            }
        }
    }

    /// Swift Testing runs these cases in parallel; each opens its own cassette with `withCassette`.
    @Test(arguments: 0..<20)
    func parallelTestsEachGetTheirOwnCassette(owner: Int) async throws {
        try await withScratchTape { scratch in
            try Self.writeCassette(owner: owner, to: scratch.file("owner.json"))
            try await withCassette("owner", folder: scratch.url.path, mode: .none) { tape in
                #expect(Tape.current === tape)
                for item in 0..<Self.itemsPerCassette {
                    let fetched = await Fetch.get("https://api.example.com/items/\(item)", on: tape.session)
                    #expect(fetched.text == "\(owner):\(item)")
                }
            }
        }
    }

    /// 1,000 replays with 64 in flight, ten times over in one process: no crash, every answer right.
    /// On Linux requests wait for FoundationNetworking's shared queue, so some are decided on the
    /// ``DecisionQueue``; on Apple platforms none is.
    @Test func stressOneThousandReplaysSixtyFourInFlightTenTimes() async throws {
        try await TimingIsolation.run {
            try await withScratchTape { scratch in
                let file = scratch.file("stress.json")
                let interactions = (0..<1_000).map { i in
                    Interaction(
                        request: .init(method: "GET", url: "https://stress.example/\(i)"),
                        response: .init(status: 200, body: .init(text: "answer \(i)")))
                }
                try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: file)
                let decidedAside = Locked(0)
                let options = Tape.Options(beforeReplay: { interaction in
                    if DecisionQueue.shared.isCurrent { decidedAside.withLock { $0 += 1 } }
                    return interaction
                })
                for round in 0..<10 {
                    let tape = try Tape(file: file, mode: .none, options: options, environment: .tests)
                    let session = tape.session
                    let correct = await withTaskGroup(of: Bool.self) { group in
                        var next = 0
                        var correct = 0
                        func add() {
                            let i = next
                            next += 1
                            group.addTask {
                                await Fetch.get("https://stress.example/\(i)", on: session, style: i % 2 == 0 ? .async : .completionHandler)
                                    .text == "answer \(i)"
                            }
                        }
                        while next < 64 { add() }
                        for await ok in group {
                            if ok { correct += 1 }
                            if next < 1_000 { add() }
                        }
                        return correct
                    }
                    #expect(correct == 1_000, "round \(round)")
                    #expect(try tape.eject().replayed == 1_000)
                }
                #if canImport(FoundationNetworking)
                #expect(decidedAside.withLock { $0 } > 0, "64 in flight, yet no request was decided aside")
                #else
                #expect(decidedAside.withLock { $0 } == 0, "no request waits for a shared queue here")
                #endif
            }
        }
    }
}
