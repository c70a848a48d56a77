/// What ejecting a tape says about recorded interactions that answered no request.
///
/// An unused interaction usually means the code under test stopped making a request the
/// cassette expects (or makes it differently). Whether that matters depends on the test.
///
/// ```swift
/// @Test(.cassette(options: .init(unusedInteractions: .fail))) func syncsEverything() async throws { … }
/// ```
///
/// Whatever the policy, unused interactions are not reported when requests found no match, or
/// when the test threw: the unmatched-request report, or the test's own error, says more.
public enum UnusedInteractions: String, Sendable, CaseIterable {
    /// Say nothing (the default, as in VCR: a cassette may hold more than one test needs).
    case ignore
    /// A warning: a Swift Testing warning issue, or a line on standard error under XCTest.
    case warn
    /// A test failure.
    case fail
}
