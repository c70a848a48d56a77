/// The environment a test gives the tapes it opens.
extension Dictionary where Key == String, Value == String {
    /// None of the process's variables, and no line for each cassette saved: the suite records
    /// hundreds of cassettes into scratch folders, and its output should show failures, not their
    /// announcements (`SaveAnnouncementTests` checks the line itself).
    public static var tests: [String: String] { ["CASSETTE_SUMMARY": "0"] }
}
