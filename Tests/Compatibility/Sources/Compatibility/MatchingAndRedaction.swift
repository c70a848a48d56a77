import Cassette
import Foundation

// How requests are matched, what is kept out of a cassette, and a folder's rules file, as the
// Guide's matching and redaction chapters write them.

func matching() -> [RequestMatching] {
    let loose = RequestMatching.default
        .ignoringQueryParameters("timestamp", "nonce")
        .ignoringJSONPaths("$.requestId")
        .includingHeaders("Accept-Language")
        .ignoringHost()
        .ignoringPort()
        .comparingMultipartPartOrder()
    _ = (loose.headers, loose.ignoredQueryParameters, loose.ignoredJSONPaths, loose.predicate)
    let custom = RequestMatching.custom { live, recorded in
        RequestMatching.default.ignoringHost().matches(live, recorded) && live.headers["X-Tenant"] == recorded.headers["X-Tenant"]
    }
    return [loose, custom]
}

func redaction() -> Redaction {
    var redaction = Redaction.default
        .redactingHeaders("X-Session")
        .redactingQueryParameters("signature")
        .redactingJSONPaths("$.user.ssn")
        .redactingJSONKeys("pin")
        .redactingFormFields("card_number")
        .redactingBodyMatches(#"sk_live_[A-Za-z0-9]+"#)
        .replacing("acct_1234567890", with: "ACCOUNT")
    redaction.minimumEchoLength = 8
    let placeholder = Redaction.Placeholder(secret: "s3cr3t", placeholder: "SECRET")
    redaction.placeholders.append(placeholder)
    _ = (placeholder.secret, placeholder.placeholder)
    _ = (
        redaction.headers, redaction.queryParameters, redaction.jsonPaths, redaction.jsonKeys, redaction.formFields, redaction.bodyPatterns
    )
    _ = (Redaction.credentialHeaders, Redaction.credentialFields, Redaction.credentialQueryParameters, Redaction.replacement)
    _ = Redaction(
        headers: ["Authorization"], queryParameters: ["api_key"], jsonPaths: [], jsonKeys: ["token"], formFields: ["password"],
        bodyPatterns: [], placeholders: [], minimumEchoLength: 6)
    _ = Redaction.none
    return redaction
}

func rulesFile(folder: URL) throws -> Tape.Options {
    let rules = try TapeRules.inFolder(folder) ?? TapeRules(contentsOf: folder.appendingPathComponent("cassette-rules.json"))
    var own = TapeRules(
        matching: .default, redaction: .default, latency: .instant, allowsRepeatedReplays: true, ignoredRequests: IgnoredRequests.none)
    own.matching = rules.matching
    own.redaction = rules.redaction
    own.latency = rules.latency
    own.allowsRepeatedReplays = rules.allowsRepeatedReplays
    own.ignoredRequests = rules.ignoredRequests
    return own.applying(to: Tape.Options())
}
