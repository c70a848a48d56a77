#if canImport(Testing)
import Foundation
import Testing

/// The cassette name of one case of a parameterized test: `Suite/test/ARGUMENTS`, from the case's
/// argument values, stable from run to run and safe as a file name.
///
/// | argument | name |
/// | --- | --- |
/// | `"swift"`, `42`, `true`, `3.5` | `swift`, `42`, `true`, `3.5` |
/// | an enum case (`.admin`, `Role.admin`), or its raw value when it has one | `admin` |
/// | a struct (`User(id: 1, name: "Ada")`) | its description, made file-safe: `User_id_1_name_Ada` |
/// | a value with a `testDescription` (`CustomTestStringConvertible`; not a string or raw value) | that description, made file-safe |
/// | several arguments | each, joined by `-`: `admin-42` |
///
/// Characters other than letters, digits, `.`, `_` and `-` become `_`; a name longer than 80
/// characters keeps its first 60 and a hash of the whole. A value whose description is not
/// stable — a class instance without a description of its own (its description is its type's
/// name, the same for every case), or a description holding a memory address — cannot name a
/// cassette: the case fails with ``CassetteError/cassetteNameNotDerivable(test:argument:reason:)``.
enum ArgumentCassetteName {
    /// The longest name made from arguments before it is shortened with a hash.
    static let longest = 80

    /// The name for `testCase` of `test`, under `base` (the test's own cassette name).
    static func name(base: String, test: Test, testCase: Test.Case) throws(CassetteError) -> String {
        guard let values = argumentValues(of: testCase) else {
            throw .cassetteNameNotDerivable(
                test: test.name, argument: "its arguments",
                reason: "this version of Swift Testing does not show a test case's arguments to traits")
        }
        var pieces: [String] = []
        for (label, value) in values {
            let text: String
            switch describe(value) {
            case .success(let described): text = described
            case .failure(let reason):
                throw .cassetteNameNotDerivable(
                    test: test.name, argument: "\(label) → \(String(describingForTest: value))", reason: reason.text)
            }
            pieces.append(fileSafe(text))
        }
        return base + "/" + shortened(pieces.joined(separator: "-"))
    }

    struct Unstable: Error {
        var text: String
    }

    /// A stable text for `value`, or why there is none.
    static func describe(_ value: Any) -> Result<String, Unstable> {
        // Strings and raw values first: Swift Testing's own testDescription quotes them.
        if let text = value as? String { return checked(text) }
        if let raw = value as? any RawRepresentable { return describe(raw.rawValue) }
        if let custom = value as? any CustomTestStringConvertible { return checked(custom.testDescription) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class, !(value is any CustomStringConvertible), !(value is any CustomDebugStringConvertible) {
            return .failure(
                Unstable(
                    text: "it is an instance of a class without a description of its own, so every case would get "
                        + "the same name (\(type(of: value)))"))
        }
        return checked(String(describing: value))
    }

    private static func checked(_ text: String) -> Result<String, Unstable> {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return .failure(Unstable(text: "its description is empty")) }
        if text.range(of: "0x[0-9a-fA-F]{6,}", options: .regularExpression) != nil {
            return .failure(Unstable(text: "its description holds a memory address, which changes from run to run"))
        }
        return .success(text)
    }

    /// Letters, digits, `.`, `_` and `-` kept; runs of anything else become one `_`; no leading
    /// `.` (a hidden file) and no `_` at either end.
    static func fileSafe(_ text: String) -> String {
        var out = ""
        var pendingSeparator = false
        for scalar in text.unicodeScalars {
            let safe = (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == "."))
            if safe {
                if pendingSeparator, !out.isEmpty { out.append("_") }
                pendingSeparator = false
                out.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        while out.hasPrefix(".") || out.hasPrefix("_") { out.removeFirst() }
        while out.hasSuffix("_") { out.removeLast() }
        return out.isEmpty ? "_" : out
    }

    /// `name`, or its first 60 characters and an FNV-1a hash of the whole when it is too long.
    static func shortened(_ name: String) -> String {
        guard name.utf8.count > longest else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(name.prefix(60)) + "_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The case's argument values with their parameter labels. Swift Testing keeps them out of its
    /// public API, so they are read by reflection; nil when its layout is not the one known
    /// (Swift Testing 6.1 to 6.3: `_kind.parameterized.arguments[i].value`).
    static func argumentValues(of testCase: Test.Case) -> [(label: String, value: Any)]? {
        func child(_ name: String, of value: Any) -> Any? {
            Mirror(reflecting: value).children.first { $0.label == name }?.value
        }
        guard let kind = child("_kind", of: testCase), let parameterized = child("parameterized", of: kind),
            let arguments = child("arguments", of: parameterized)
        else { return nil }
        var values: [(label: String, value: Any)] = []
        for argument in Mirror(reflecting: arguments).children.map(\.value) {
            guard let value = child("value", of: argument) else { return nil }
            let label = child("parameter", of: argument).flatMap { child("firstName", of: $0) as? String } ?? "argument"
            values.append((label, value))
        }
        return values.isEmpty ? nil : values
    }
}
#endif
