/// The exit statuses of `cassette`, the same for every command.
enum ExitCode {
    /// Everything worked; every cassette is valid.
    static let success: Int32 = 0
    /// The command ran and found a problem (an invalid cassette, an unreadable file).
    static let failure: Int32 = 1
    /// The command line itself was wrong: unknown command or option, missing argument.
    static let usage: Int32 = 2
}
