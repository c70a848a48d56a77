import Foundation

/// What a tape does when an interaction it is about to save still looks like it holds a secret
/// after redaction — a token in a header no rule names, a key-shaped value in a body.
///
/// The check is the one `cassette check-secrets` runs (`SecretScanner`): known shapes (JWTs,
/// bearer tokens, AWS, Google, GitHub, Slack and Stripe keys, private keys) anywhere, and long
/// random strings in auth-like fields. Each finding names the interaction and the place, never
/// the value.
///
/// ```swift
/// // CI refuses to write a cassette that may leak a credential:
/// Tape.Options(secretCheck: .failSave)
/// ```
public enum SecretCheck: Sendable, Equatable {
    /// Save, and warn in the report (``Tape/Report/warnings``) and on standard error. The default.
    case warn
    /// Do not save: ejecting throws ``CassetteError/suspectedSecrets(file:findings:)`` listing
    /// the findings, and the file on disk stays as it was.
    case failSave
    /// Do not look.
    case off

    /// Bodies and WebSocket messages larger than this are checked in their first part only (4 MB),
    /// so that saving a huge recording stays fast.
    static let largestCheckedBody = 4 * 1024 * 1024

    /// One line per finding in `interactions` (what a tape is about to save), each naming the
    /// request, the place and the kind of secret, never the value.
    static func findings(in interactions: [Interaction]) -> [String] {
        guard let scanner = try? SecretScanner() else { return [] }
        return interactions.flatMap { interaction in
            scanner.findings(in: interaction, largestBody: largestCheckedBody).map { finding in
                "\(interaction.request.method) \(interaction.request.url): \(finding.kind) in \(finding.place) "
                    + "(\(finding.value.count) characters)"
            }
        }
    }

    /// What to do about a finding: the sentence that ends each warning and error.
    package static let advice =
        "Add a redaction rule for each place (Redaction.default.redactingHeaders(…), .redactingQueryParameters(…), "
        + ".redactingJSONKeys(…)) or a placeholder (.replacing(secret, with: \"<NAME>\")), then record again; if a value is not "
        + "a secret, Tape.Options(secretCheck: .off) silences the check."
}
