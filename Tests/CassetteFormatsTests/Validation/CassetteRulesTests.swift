import Testing

@testable import CassetteFormats

@Suite struct CassetteRulesTests {
    @Test(arguments: [
        "https://api.example.com/users/42?fields=name", "http://127.0.0.1:8080/", "https://[::1]:443/x",
        "https://例え.jp/パス?q=ü", "https://user:pw@host.example/p", "x-custom+scheme://h", "wss://h/a%2Fb#frag",
        "https://h:0", "https://h:65535/",
    ])
    func acceptsAbsoluteURLs(url: String) {
        #expect(CassetteRules.urlProblem(url) == nil, "\(url): \(CassetteRules.urlProblem(url) ?? "")")
    }

    @Test(
        arguments: [
            ("", "found an empty string"),
            ("/users/42", "(no scheme)"),
            ("users/42", "(no scheme)"),
            ("1http://h/", "(no scheme)"),
            ("mailto:ada@example.com", "(no \"//\" and host after the scheme)"),
            ("https:///path", "has no host"),
            ("https://:80/path", "has no host"),
            ("https://h:99999/", "port must be a number from 0 to 65535, found \"99999\""),
            ("https://h:8o/", "port must be a number from 0 to 65535"),
            ("https://[::1/", "no closing ']'"),
            ("https://h/a b", "contains a space at character 12"),
            ("https://h/\tx", "control or white-space character at character 11"),
            // White space beyond ASCII, which Unicode's properties name: a no-break, an em and an ideographic space, NEL.
            ("https://h/a\u{00A0}b", "control or white-space character at character 12"),
            ("https://h/\u{2003}", "control or white-space character at character 11"),
            ("https://h/\u{3000}x", "control or white-space character at character 11"),
            ("https://h/\u{85}", "control or white-space character at character 11"),
            ("https://h/%4", "invalid percent escape at character 11"),
        ] as [(String, String)])
    func rejectsWhatIsNotAnAbsoluteURL(url: String, says: String) {
        let problem = CassetteRules.urlProblem(url)
        #expect(problem?.contains(says) == true, "\(url): \(problem ?? "accepted")")
    }

    @Test func methodsAndHeaderNamesAreTokens() {
        #expect(CassetteRules.methodProblem("M-SEARCH") == nil)
        #expect(CassetteRules.methodProblem("GET ") != nil)
        #expect(CassetteRules.headerNameProblem("X_Custom.Header~1") == nil)
        #expect(CassetteRules.headerNameProblem("Bad:Name") != nil)
        #expect(CassetteRules.headerNameProblem("Ümlaut") != nil)
    }
}
