import CassetteTestSupport
import Testing

/// A suite that runs alone (``RunsAlone``) runs only where `CASSETTE_ALONE` names it: never
/// beside the others, and never because another suite runs alone.
@Suite struct RunsAloneTests {
    @Test func aSuiteRunsOnlyWhereTheVariableNamesIt() {
        #expect(RunsAlone.suites == ["ConfigurationSwizzleTests"])
        #expect(RunsAlone.here("ConfigurationSwizzleTests", environment: ["CASSETTE_ALONE": "ConfigurationSwizzleTests"]))
        #expect(!RunsAlone.here("ConfigurationSwizzleTests", environment: [:]))
        #expect(!RunsAlone.here("ConfigurationSwizzleTests", environment: ["CASSETTE_ALONE": "SomeOtherTests"]))
        // A name not in the list never runs alone: the jobs run only what the list says.
        #expect(!RunsAlone.here("SomeOtherTests", environment: ["CASSETTE_ALONE": "SomeOtherTests"]))
    }
}
