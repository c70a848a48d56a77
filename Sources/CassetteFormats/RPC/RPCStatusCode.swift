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

    package var description: String { "\(connectName) (\(number))" }
}
