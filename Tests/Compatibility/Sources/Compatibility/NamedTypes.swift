import Cassette
import Foundation

// The types a helper's signature names: a test's own assertion helpers take and return them.

struct Evidence {
    var report: Tape.Report
    var stale: Tape.Report.Stale?
    var matches: [Tape.Report.RedactedMatch]
    var misses: [UnmatchedRequest]
    var candidates: [UnmatchedRequest.Candidate]
    var fields: [RequestDifference.Field]
    var interception: ConfigurationInterception?
    var cache: URLCacheUse
    var stubs: [Stub]
    var requests: [StubRequest]
    var unmatched: StubSession.Unmatched
    var verification: StubVerificationError?
    var formatError: CassetteFormatError?
    var problems: [CassetteFormatError.Problem]
    var headerFields: [Interaction.Headers.Field]
    var senders: [Interaction.WebSocketMessage.Sender]
    var components: [JSONPath.Component]
}
