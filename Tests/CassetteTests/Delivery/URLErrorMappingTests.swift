import Cassette
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The code-name table in CassetteFormats matches the platform's `URLError.Code`.
@Suite struct URLErrorMappingTests {
    static let platformCodes: [(String, URLError.Code)] = [
        ("unknown", .unknown), ("cancelled", .cancelled), ("badURL", .badURL), ("timedOut", .timedOut),
        ("unsupportedURL", .unsupportedURL), ("cannotFindHost", .cannotFindHost), ("cannotConnectToHost", .cannotConnectToHost),
        ("networkConnectionLost", .networkConnectionLost), ("dnsLookupFailed", .dnsLookupFailed),
        ("httpTooManyRedirects", .httpTooManyRedirects), ("resourceUnavailable", .resourceUnavailable),
        ("notConnectedToInternet", .notConnectedToInternet), ("redirectToNonExistentLocation", .redirectToNonExistentLocation),
        ("badServerResponse", .badServerResponse), ("userCancelledAuthentication", .userCancelledAuthentication),
        ("userAuthenticationRequired", .userAuthenticationRequired), ("zeroByteResource", .zeroByteResource),
        ("cannotDecodeRawData", .cannotDecodeRawData), ("cannotDecodeContentData", .cannotDecodeContentData),
        ("cannotParseResponse", .cannotParseResponse),
        ("appTransportSecurityRequiresSecureConnection", .appTransportSecurityRequiresSecureConnection),
        ("fileDoesNotExist", .fileDoesNotExist), ("fileIsDirectory", .fileIsDirectory),
        ("noPermissionsToReadFile", .noPermissionsToReadFile), ("dataLengthExceedsMaximum", .dataLengthExceedsMaximum),
        ("secureConnectionFailed", .secureConnectionFailed),
        ("serverCertificateHasBadDate", .serverCertificateHasBadDate), ("serverCertificateUntrusted", .serverCertificateUntrusted),
        ("serverCertificateHasUnknownRoot", .serverCertificateHasUnknownRoot),
        ("serverCertificateNotYetValid", .serverCertificateNotYetValid), ("clientCertificateRejected", .clientCertificateRejected),
        ("clientCertificateRequired", .clientCertificateRequired), ("cannotLoadFromNetwork", .cannotLoadFromNetwork),
        ("cannotCreateFile", .cannotCreateFile), ("cannotOpenFile", .cannotOpenFile), ("cannotCloseFile", .cannotCloseFile),
        ("cannotWriteToFile", .cannotWriteToFile), ("cannotRemoveFile", .cannotRemoveFile), ("cannotMoveFile", .cannotMoveFile),
        ("downloadDecodingFailedMidStream", .downloadDecodingFailedMidStream),
        ("downloadDecodingFailedToComplete", .downloadDecodingFailedToComplete),
        ("internationalRoamingOff", .internationalRoamingOff), ("callIsActive", .callIsActive), ("dataNotAllowed", .dataNotAllowed),
        ("requestBodyStreamExhausted", .requestBodyStreamExhausted),
        ("backgroundSessionRequiresSharedContainer", .backgroundSessionRequiresSharedContainer),
        ("backgroundSessionInUseByAnotherProcess", .backgroundSessionInUseByAnotherProcess),
        ("backgroundSessionWasDisconnected", .backgroundSessionWasDisconnected),
    ]

    /// Codes some platforms do not declare (`fileOutsideSafeArea` is Apple-only, -1104).
    static let notOnEveryPlatform = ["fileOutsideSafeArea"]

    @Test func everyNameHasThePlatformsRawValue() {
        #expect(Interaction.TransportError.Code.allNames.filter { !Self.notOnEveryPlatform.contains($0) } == Self.platformCodes.map(\.0))
        #expect(Interaction.TransportError.Code(name: "fileOutsideSafeArea")?.rawValue == -1104)
        for (name, code) in Self.platformCodes {
            #expect(Interaction.TransportError.Code(name: name)?.rawValue == code.rawValue, "\(name)")
        }
    }

    @Test func convertsToAndFromURLError() {
        let error = Interaction.TransportError(code: .timedOut)
        #expect(error.urlError.code == .timedOut)
        #expect(Interaction.TransportError(URLError(.networkConnectionLost)).code == .networkConnectionLost)
    }
}
