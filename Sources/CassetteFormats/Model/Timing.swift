import Foundation

extension Interaction {
    /// How long an exchange took, in seconds from the start of the request.
    public struct Timing: Sendable, Equatable {
        /// Until the response head arrived.
        public var firstByte: TimeInterval
        /// Until the last byte arrived (or the error). Never less than ``firstByte``.
        public var duration: TimeInterval

        /// A timing from its parts.
        public init(firstByte: TimeInterval, duration: TimeInterval) {
            self.firstByte = firstByte
            self.duration = duration
        }
    }
}
