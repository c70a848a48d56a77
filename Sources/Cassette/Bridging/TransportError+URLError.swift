import Foundation

extension Interaction.TransportError {
    /// The `URLError` a caller receives when this error is replayed.
    ///
    /// On Linux `URLError.Code` is a closed enum: a raw value it does not declare becomes `.unknown`.
    package var urlError: URLError {
        URLError(URLError.Code(anyRawValue: code.rawValue))
    }

    /// The recorded form of a `URLError`.
    package init(_ error: URLError) {
        self.init(code: Code(rawValue: error.code.rawValue))
    }
}

extension URLError.Code {
    /// The code with this raw value; on Linux, where `URLError.Code` is a closed enum, `.unknown`
    /// for a value it does not declare.
    init(anyRawValue rawValue: Int) {
        #if canImport(FoundationNetworking)
        self = URLError.Code(rawValue: rawValue) ?? .unknown
        #else
        self = URLError.Code(rawValue: rawValue)
        #endif
    }
}

extension URLError {
    /// `error` as a `URLError`: itself, an `NSError` of `NSURLErrorDomain` with its code, or
    /// `.unknown` carrying its description.
    package init(converting error: Error) {
        if let urlError = error as? URLError {
            self = urlError
            return
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            self = URLError(URLError.Code(anyRawValue: nsError.code), userInfo: nsError.userInfo)
        } else {
            self = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: nsError.localizedDescription, NSUnderlyingErrorKey: nsError])
        }
    }
}
