/// The exit statuses of `cassette`, one table for every command (`cassette --help` prints it;
/// each command's help says which it uses, in these words):
///
/// | status | meaning |
/// | --- | --- |
/// | 0 | done, nothing found |
/// | 1 | a finding or a failure: an invalid or unreadable cassette, a change, a secret, a miss, a file that cannot be written |
/// | 2 | the command line was wrong |
/// | 3 | the command could not compare what it was given: a cassette it compares cannot be read (diff, check), a live server cannot be reached (check), the answer was a transport error (record, play) |
enum ExitCode {
    /// Everything worked; every cassette is valid.
    static let success: Int32 = 0
    /// The command ran and found a problem (an invalid cassette, an unreadable file).
    static let failure: Int32 = 1
    /// The command line itself was wrong: unknown command or option, missing argument.
    static let usage: Int32 = 2
    /// The command could not compare what it was given: a cassette to compare unreadable, a live
    /// server unreachable, an answer that was a transport error.
    static let couldNotCompare: Int32 = 3

    /// The table, as `cassette --help` prints it.
    static let table = """
        EXIT STATUS (every command): 0 done, nothing found; 1 a finding or a failure (an invalid or
        unreadable cassette, a change, a secret, a miss, a file that cannot be written); 2 the
        command line was wrong; 3 what was to be compared could not be: a cassette it compares
        cannot be read (diff, check), a live server cannot be reached (check), the answer was a
        transport error (record, play).
        """
}
