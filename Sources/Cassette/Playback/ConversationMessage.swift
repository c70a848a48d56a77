import Foundation

/// A WebSocket message as a live peer sent it, whole (a control frame on its own): what a
/// conversation's playback compares with the recording (``WebSocketScript``) and learns
/// placeholders from (``ConversationReplay``). The server's frame reader makes it from frames;
/// playback knows nothing of frames.
package enum ConversationMessage: Sendable, Equatable {
    case text(String)
    case binary(Data)
    case ping(Data)
    case pong(Data)
    /// A close: its code and reason (nil code: a close without a payload).
    case close(code: UInt16?, reason: String)
}
