import Executors

/// Requests this side sends to the client.
extension Connection {
    struct PendingRequest {
        let method: String
        let continuation: CheckedContinuation<Result<JSONValue, RPCError>, Never>
        var deadline: DeadlineTimer?
    }

    /// Sends a request to the client and waits for its reply, at most `timeout`.
    ///
    /// Every way the wait can end resolves it exactly once: the reply (a valid error reply is
    /// thrown as it came; a reply that is not a valid response throws `malformedResponse`),
    /// the deadline (`requestTimeout`, and the client is sent `$/cancelRequest`), cancellation
    /// of the calling task (`requestCancelled`, and `$/cancelRequest`), `shutdown`
    /// (`shutDown`), or the connection closing (`connectionClosed`). A reply after any of
    /// these is ignored.
    public func sendRequest(
        _ method: String,
        params: JSONValue? = nil,
        timeout: Duration
    ) async throws(RPCError) -> JSONValue {
        let id = state.withLock { state -> String in
            state.nextOutgoingID += 1
            return "sw-\(state.nextOutgoingID)"
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<JSONValue, RPCError>, Never>) in
                let refusal = state.withLock { state -> RPCError? in
                    if let refusal = state.outgoingRefusal { return refusal }
                    state.pending[id] = PendingRequest(method: method, continuation: continuation, deadline: nil)
                    return nil
                }
                if let refusal {
                    continuation.resume(returning: .failure(refusal))
                    return
                }
                send(OutgoingMessage.request(id: id, method: method, params: params))
                // Fires on Dispatch's threads: the waiting request resumes on its own executor
                // with the timeout even while every thread of the cooperative pool is busy.
                let deadline = DeadlineTimer(after: timeout) { [self] in
                    resolvePending(
                        id,
                        with: .failure(.requestTimeout(method: method, after: timeout)),
                        cancelAtClient: true
                    )
                }
                let armed = state.withLock { state -> Bool in
                    guard state.pending[id] != nil else { return false }
                    state.pending[id]?.deadline = deadline
                    return true
                }
                if !armed { deadline.cancel() }
                if Task.isCancelled {
                    resolvePending(id, with: .failure(.requestCancelled), cancelAtClient: true)
                }
            }
        } onCancel: {
            resolvePending(id, with: .failure(.requestCancelled), cancelAtClient: true)
        }
        return try outcome.get()
    }

    /// Routes a reply from the client to the request waiting for it.
    func resolveReply(id: RequestID, outcome: Result<JSONValue, RPCError>) {
        guard case .string(let key) = id.value, resolvePending(key, with: outcome, cancelAtClient: false) else {
            logger.debug("ignored a reply to \(id), which no request is waiting for")
            return
        }
    }

    @discardableResult
    func resolvePending(_ id: String, with outcome: Result<JSONValue, RPCError>, cancelAtClient: Bool) -> Bool {
        guard let entry = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return false }
        entry.deadline?.cancel()
        if cancelAtClient {
            notify("$/cancelRequest", params: ["id": .string(id)])
        }
        entry.continuation.resume(returning: outcome)
        return true
    }

    func failPendingRequests(with error: RPCError) {
        let entries = state.withLock { state -> [PendingRequest] in
            let entries = Array(state.pending.values)
            state.pending.removeAll()
            return entries
        }
        for entry in entries {
            entry.deadline?.cancel()
            entry.continuation.resume(returning: .failure(error))
        }
    }
}
