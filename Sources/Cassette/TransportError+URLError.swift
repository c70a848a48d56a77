import Foundation

extension Interaction.TransportError {
    /// The `URLError` a caller receives when this error is replayed.
    ///
    /// On Linux `URLError.Code` is a closed enum: a raw value it does not declare becomes `.unknown`.
    public var urlError: URLError {
        #if canImport(FoundationNetworking)
        URLError(URLError.Code(rawValue: code.rawValue) ?? .unknown)
        #else
        URLError(URLError.Code(rawValue: code.rawValue))
        #endif
    }

    /// The recorded form of a `URLError`.
    public init(_ error: URLError) {
        self.init(code: Code(rawValue: error.code.rawValue))
    }
}
