/// Tells a caller that left its thread before calling the SDK when the calls queued behind it
/// may go on: a presentation calls `signal` once its audiences are decided, or as it starts to
/// wait (for its turn, the config, the subscription status), whichever comes first. The bridge
/// keeps its client's requests in order with it: an override sent after a decision never
/// reaches the actor before that decision has read the assignments.
public enum SDKEntry {
    @TaskLocal public static var signal: (@Sendable () -> Void)?
}
