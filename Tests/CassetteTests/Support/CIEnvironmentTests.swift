import Foundation
import Testing

/// The iOS job builds the tests with `-DCASSETTE_CI_JOB` and must hand them what CI sets: the test
/// process of `xcodebuild test` gets only `TEST_RUNNER_`-prefixed variables, the prefix removed, so
/// a job that sets `CI=true` alone leaves every cassette recording there instead of failing as CI
/// does (`.ci/lib.sh`'s `test_runner_env`). Compiled out everywhere else, where `swift test` passes
/// the environment as it is.
@Suite struct CIEnvironmentTests {
    #if CASSETTE_CI_JOB
    @Test func theTestProcessSeesWhatTheJobSet() {
        let environment = ProcessInfo.processInfo.environment
        #expect(environment["CI"] == "true", "the iOS job passes CI as TEST_RUNNER_CI (xcodebuild drops other variables)")
        #expect(environment.keys.contains { $0.hasPrefix("TEST_RUNNER_") } == false, "xcodebuild removes the prefix")
    }
    #endif
}
