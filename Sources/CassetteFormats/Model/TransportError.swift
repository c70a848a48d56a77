extension Interaction {
    /// A transport failure in place of a response, or after part of one: what `URLSession`
    /// reports as a `URLError`.
    ///
    /// In a file it is written by code name (`{ "code": "timedOut" }`); a number
    /// (`{ "code": -1001 }`) is read too, so a code this table does not name can still be used.
    ///
    /// Next to a response, the error ends the body: the caller gets the head, the body (or its
    /// first ``afterBytes`` bytes), then the error — a connection dropped mid-download:
    ///
    /// ```json
    /// "response": { "status": 200, "body": { "text": "…" } },
    /// "error": { "code": "networkConnectionLost", "afterBytes": 1024 }
    /// ```
    public struct TransportError: Sendable, Equatable {
        /// The `URLError.Code`.
        public var code: Code
        /// With a response: how many bytes of its body arrive before the error. Nil means all
        /// of them. Not more than the body's size; not used without a response.
        public var afterBytes: Int?

        /// An error with `code`, after `afterBytes` bytes of the response body when there is one.
        public init(code: Code, afterBytes: Int? = nil) {
            self.code = code
            self.afterBytes = afterBytes
        }

        /// A `URLError.Code`, by raw value, with its Swift name where it has one.
        ///
        /// This module does not depend on `URLSession` types; `URLError.Code(rawValue: code.rawValue)`
        /// converts in the runtime.
        public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            /// The `URLError.Code` raw value (`-1001` for `timedOut`).
            public var rawValue: Int

            /// The code with this raw value.
            public init(rawValue: Int) {
                self.rawValue = rawValue
            }

            /// The code with this Swift name (`"timedOut"`), or nil when no `URLError.Code` has it.
            public init?(name: String) {
                guard let rawValue = Self.rawValuesByName[name] else { return nil }
                self.rawValue = rawValue
            }

            /// The Swift name of the `URLError.Code` (`"timedOut"`), or nil for a code without one.
            public var name: String? { Self.namesByRawValue[rawValue] }

            /// Every name this table knows, in the order `URLError.Code` declares them.
            package static var allNames: [String] { table.map(\.name) }

            /// The code's name and number, `timedOut (-1001)`, or the number alone for a code without a name.
            public var description: String { name.map { "\($0) (\(rawValue))" } ?? "\(rawValue)" }

            // The `URLError.Code` cases, in declaration order.
            private static let table: [(name: String, rawValue: Int)] = [
                ("unknown", -1), ("cancelled", -999), ("badURL", -1000), ("timedOut", -1001),
                ("unsupportedURL", -1002), ("cannotFindHost", -1003), ("cannotConnectToHost", -1004),
                ("networkConnectionLost", -1005), ("dnsLookupFailed", -1006), ("httpTooManyRedirects", -1007),
                ("resourceUnavailable", -1008), ("notConnectedToInternet", -1009),
                ("redirectToNonExistentLocation", -1010), ("badServerResponse", -1011),
                ("userCancelledAuthentication", -1012), ("userAuthenticationRequired", -1013),
                ("zeroByteResource", -1014), ("cannotDecodeRawData", -1015), ("cannotDecodeContentData", -1016),
                ("cannotParseResponse", -1017), ("appTransportSecurityRequiresSecureConnection", -1022),
                ("fileDoesNotExist", -1100), ("fileIsDirectory", -1101), ("noPermissionsToReadFile", -1102),
                ("dataLengthExceedsMaximum", -1103), ("fileOutsideSafeArea", -1104),
                ("secureConnectionFailed", -1200), ("serverCertificateHasBadDate", -1201),
                ("serverCertificateUntrusted", -1202), ("serverCertificateHasUnknownRoot", -1203),
                ("serverCertificateNotYetValid", -1204), ("clientCertificateRejected", -1205),
                ("clientCertificateRequired", -1206), ("cannotLoadFromNetwork", -2000),
                ("cannotCreateFile", -3000), ("cannotOpenFile", -3001), ("cannotCloseFile", -3002),
                ("cannotWriteToFile", -3003), ("cannotRemoveFile", -3004), ("cannotMoveFile", -3005),
                ("downloadDecodingFailedMidStream", -3006), ("downloadDecodingFailedToComplete", -3007),
                ("internationalRoamingOff", -1018), ("callIsActive", -1019), ("dataNotAllowed", -1020),
                ("requestBodyStreamExhausted", -1021), ("backgroundSessionRequiresSharedContainer", -995),
                ("backgroundSessionInUseByAnotherProcess", -996), ("backgroundSessionWasDisconnected", -997),
            ]
            private static let rawValuesByName = Dictionary(uniqueKeysWithValues: table.map { ($0.name, $0.rawValue) })
            private static let namesByRawValue = Dictionary(uniqueKeysWithValues: table.map { ($0.rawValue, $0.name) })
        }
    }
}

extension Interaction.TransportError.Code {
    /// `URLError.Code.timedOut`.
    public static let timedOut = Self(rawValue: -1001)
    /// `URLError.Code.cancelled`.
    public static let cancelled = Self(rawValue: -999)
    /// `URLError.Code.cannotConnectToHost`.
    public static let cannotConnectToHost = Self(rawValue: -1004)
    /// `URLError.Code.networkConnectionLost`.
    public static let networkConnectionLost = Self(rawValue: -1005)
    /// `URLError.Code.notConnectedToInternet`.
    public static let notConnectedToInternet = Self(rawValue: -1009)
    /// `URLError.Code.cannotFindHost`.
    public static let cannotFindHost = Self(rawValue: -1003)
    /// `URLError.Code.secureConnectionFailed`.
    public static let secureConnectionFailed = Self(rawValue: -1200)
    /// `URLError.Code.badServerResponse`.
    public static let badServerResponse = Self(rawValue: -1011)
}
