import Foundation

/// A call's status, as gRPC numbers it (`grpc-status`, grpc/grpc's doc/statuscodes.md) and as
/// Connect names it (an error's `code`, connectrpc.com/docs/protocol#error-codes): the same
/// sixteen failures and `ok`.
package struct RPCStatusCode: Sendable, Hashable, CustomStringConvertible {
    /// gRPC's number, 0 (`ok`) to 16.
    package let number: Int

    /// Every code, by number: Connect's name for each (`ok` has none in Connect, which sends no
    /// error for it).
    package static let names = [
        "ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found", "already_exists",
        "permission_denied", "resource_exhausted", "failed_precondition", "aborted", "out_of_range", "unimplemented",
        "internal", "unavailable", "data_loss", "unauthenticated",
    ]

    /// The code gRPC numbers `number`; nil outside 0…16.
    package init?(number: Int) {
        guard Self.names.indices.contains(number) else { return nil }
        self.number = number
    }

    /// The code Connect names `name` (`unavailable`); nil for any other name, and for `ok`.
    package init?(connectName name: String) {
        guard let index = Self.names.firstIndex(of: name), index != 0 else { return nil }
        number = index
    }

    /// Connect's name: `unavailable`.
    package var connectName: String { Self.names[number] }

    /// The HTTP status a unary Connect error is sent with (connectrpc.com/docs/protocol, "Error
    /// Codes"): `unavailable` is 503. 200 for `ok`.
    package var httpStatus: Int {
        [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401][number]
    }

    /// The code a command line names: Connect's name (`unavailable`), gRPC's upper-case one
    /// (`UNAVAILABLE`, `CANCELLED`) or its number (`14`).
    package init?(named text: String) {
        if let number = Int(text) {
            self.init(number: number)
            return
        }
        let lowered = text.lowercased()
        if lowered == "ok" {
            self.init(number: 0)
        } else {
            self.init(connectName: lowered == "cancelled" ? "canceled" : lowered)
        }
    }

    package var description: String { "\(connectName) (\(number))" }
}
