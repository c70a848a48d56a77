// Alamofire's API as the Recipes article uses it: the names, labels and types of its public
// declarations (5.x), with no behaviour. DocumentationSnippetTests builds it as a module named
// `Alamofire`. Keep each declaration as upstream writes it.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public struct AlamofireExtension<ExtendedType> {}

extension URLSessionConfiguration {
    public static var af: AlamofireExtension<URLSessionConfiguration>.Type { AlamofireExtension<URLSessionConfiguration>.self }
}

extension AlamofireExtension where ExtendedType: URLSessionConfiguration {
    public static var `default`: URLSessionConfiguration { .default }
}

open class Session: @unchecked Sendable {
    public init(configuration: URLSessionConfiguration = URLSessionConfiguration.af.default) {}
}
