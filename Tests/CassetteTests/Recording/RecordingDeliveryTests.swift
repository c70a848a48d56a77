import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// While recording, a delegate-driven task hears the body as the server sends it, not in one
/// piece at the end; callers that keep only the last piece (completion handlers, `data(for:)`
/// on Linux) still get it whole.
@Suite(.timingIsolated) struct RecordingDeliveryTests {
    @Test func aDelegateHearsARecordedBodyAsItArrives() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let tape = try Tape(file: scratch.file("slow.json"), mode: .once, environment: .tests)
            let session = Fetch.delegateSession(configuredBy: tape.configure)
            let gap = 0.15 * TimingIsolation.scale
            let started = Date()
            let fetched = await Fetch.get(server.baseURL + "/slow-chunks/5/\(Int(gap * 1000))", on: session, style: .delegate)
            let total = Date().timeIntervalSince(started)
            #expect(fetched.text == "chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n")
            // Five chunks sent 150 ms apart arrive as (at least) five pieces, the head with the first.
            #expect(fetched.pieces.count >= 5, "\(fetched.pieces)")
            let headAfter = try #require(fetched.headAfter)
            #expect(total - headAfter >= 3 * gap, "the head arrived \(headAfter) s in, the end \(total) s in")

            let whole = await Fetch.get(server.baseURL + "/slow-chunks/5/\(Int(gap * 1000))", on: tape.session, style: .completionHandler)
            #expect(whole.text == fetched.text)
            _ = try tape.eject()
        }
    }
}
